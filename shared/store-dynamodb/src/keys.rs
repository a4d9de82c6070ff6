//! Key formats of the single table: partition/sort keys, index keys, attribute names.

use registry_core::Kind;
use sha2::{Digest, Sha256};

/// Table partition key attribute.
pub const PK: &str = "pk";
/// Table sort key attribute.
pub const SK: &str = "sk";
/// Definition id; the sort key of every secondary index.
pub const ID: &str = "id";
/// `agent` or `tool`.
pub const KIND: &str = "kind";
/// Stored version number (N).
pub const VERSION: &str = "version";
/// The definition document as JSON text (S), byte for byte.
pub const DOC: &str = "doc";
/// Present (BOOL true) on a tombstone: a deleted head that keeps the version counter.
pub const DELETED: &str = "deleted";
/// Lifecycle status of a live head or tag item.
pub const STATUS: &str = "status";
/// Execution type of a live tool head or tag item.
pub const EXEC: &str = "executionType";
/// Principal that created the definition.
pub const CREATED_BY: &str = "createdBy";
/// Tool ids an agent head holds references to (L of S), exactly what was counted.
pub const REFS: &str = "refs";
/// Number of agent reference items pointing at a tool head (N).
pub const REF_COUNT: &str = "refCount";
/// Referencing agent id on a reference item.
pub const AGENT_ID: &str = "agentId";
/// Tag key on a tag item.
pub const TAG_KEY: &str = "tagKey";
/// Tag value on a tag item.
pub const TAG_VALUE: &str = "tagValue";

/// Index partition key attributes, present only on live items (sparse indexes).
pub const G_KIND: &str = "gKind";
/// See [`G_KIND`].
pub const G_STATUS: &str = "gStatus";
/// See [`G_KIND`].
pub const G_EXEC: &str = "gExec";
/// See [`G_KIND`].
pub const G_CREATED_BY: &str = "gCreatedBy";
/// See [`G_KIND`].
pub const G_TAG: &str = "gTag";

/// Live heads of one kind, by id.
pub const IDX_KIND: &str = "byKind";
/// Live heads of one kind and status, by id.
pub const IDX_STATUS: &str = "byStatus";
/// Live tool heads of one execution type, by id.
pub const IDX_EXEC: &str = "byExecutionType";
/// Live heads of one kind created by one principal, by id.
pub const IDX_CREATED_BY: &str = "byCreatedBy";
/// Tag items of one kind and tag key, by id.
pub const IDX_TAG: &str = "byTag";

/// Every secondary index with its partition key attribute.
pub const INDEXES: [(&str, &str); 5] = [
    (IDX_KIND, G_KIND),
    (IDX_STATUS, G_STATUS),
    (IDX_EXEC, G_EXEC),
    (IDX_CREATED_BY, G_CREATED_BY),
    (IDX_TAG, G_TAG),
];

/// Sort key of a head item.
pub const HEAD_SK: &str = "HEAD";
/// Sort key prefix of version snapshots.
pub const VERSION_PREFIX: &str = "V#";
/// Sort key prefix of reference items (in the tool's partition).
pub const REF_PREFIX: &str = "REF#";
/// Sort key prefix of tag items.
pub const TAG_PREFIX: &str = "TAG#";

/// Partition key of the event stream: its sequence counter and every event item.
pub const EVENTS_PK: &str = "EVENTS";
/// Sort key of the event sequence counter (sorts before every event item).
pub const SEQ_SK: &str = "#SEQ";
/// Sort key prefix of event items.
pub const EVENT_PREFIX: &str = "E#";
/// Last sequence number handed out (N), on the counter item; an event item's own (N).
pub const SEQ: &str = "seq";
/// Principal of an event item.
pub const ACTOR: &str = "actor";
/// Action of an event item.
pub const ACTION: &str = "action";
/// Partition key of every proposal item.
pub const PROPOSALS_PK: &str = "PROPOSALS";
/// Sort key prefix of proposal items.
pub const PROPOSAL_PREFIX: &str = "P#";
/// Store revision of a proposal item (N).
pub const REVISION: &str = "revision";
/// State of a proposal item.
pub const STATE: &str = "state";
/// Definition id a proposal item is about.
pub const DEFINITION_ID: &str = "definitionId";

/// Sort key of the event numbered `seq`: zero-padded so string order is numeric order.
pub fn event_sk(seq: u64) -> String {
    format!("{EVENT_PREFIX}{seq:020}")
}

/// Sort key of a proposal item.
pub fn proposal_sk(id: &str) -> String {
    format!("{PROPOSAL_PREFIX}{id}")
}

/// Partition key of a definition: `AGENT#<id>` or `TOOL#<id>`.
pub fn pk(kind: Kind, id: &str) -> String {
    match kind {
        Kind::Agent => format!("AGENT#{id}"),
        Kind::Tool => format!("TOOL#{id}"),
    }
}

/// Sort key of a version snapshot: zero-padded so string order is numeric order.
pub fn version_sk(version: u64) -> String {
    format!("{VERSION_PREFIX}{version:020}")
}

/// Sort key of the reference item from `agent_id` (stored in the tool's partition).
pub fn ref_sk(agent_id: &str) -> String {
    format!("{REF_PREFIX}{agent_id}")
}

/// Sort key of a tag item: the key hashed, so any tag key fits DynamoDB's key limits.
pub fn tag_sk(tag_key: &str) -> String {
    format!("{TAG_PREFIX}{}", digest(tag_key))
}

/// `byTag` partition value for a kind and tag key.
pub fn g_tag(kind: Kind, tag_key: &str) -> String {
    format!("{}#{}", kind.as_str(), digest(tag_key))
}

/// `byCreatedBy` partition value for a kind and principal (hashed: principals can be long).
pub fn g_created_by(kind: Kind, principal: &str) -> String {
    format!("{}#{}", kind.as_str(), digest(principal))
}

/// `byStatus` / `byExecutionType` partition value: `<kind>#<value>`.
pub fn g_value(kind: Kind, value: &str) -> String {
    format!("{}#{value}", kind.as_str())
}

/// Lower-case hex SHA-256 of a string.
fn digest(s: &str) -> String {
    Sha256::digest(s.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_keys_sort_numerically() {
        assert!(version_sk(9) < version_sk(10));
        assert!(version_sk(99) < version_sk(100));
    }

    #[test]
    fn tag_keys_are_fixed_length_and_distinct() {
        assert_eq!(tag_sk("a").len(), tag_sk(&"x".repeat(5000)).len());
        assert_ne!(g_tag(Kind::Agent, "a"), g_tag(Kind::Tool, "a"));
        assert_ne!(tag_sk("a"), tag_sk("A"));
    }
}
