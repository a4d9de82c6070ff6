//! Items of the single table and their conversion to and from definitions.

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::types::AttributeValue;
use registry_core::{Definition, Kind};
use registry_store::StoreError;

use crate::decoded::Decoded;
use crate::keys::{self, *};

/// A DynamoDB item.
pub type Item = HashMap<String, AttributeValue>;

/// A string attribute value.
pub fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

/// A number attribute value.
pub fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// A string attribute of an item, if present and a string.
pub fn get_s<'a>(item: &'a Item, name: &str) -> Option<&'a str> {
    item.get(name).and_then(|v| v.as_s().ok()).map(String::as_str)
}

/// A numeric attribute of an item, if present and numeric.
pub fn get_n(item: &Item, name: &str) -> Option<i64> {
    item.get(name).and_then(|v| v.as_n().ok()).and_then(|v| v.parse().ok())
}

/// The head item of a definition as read back (live or tombstone).
#[derive(Debug, Clone)]
pub struct Head {
    /// Latest version written (a tombstone keeps it so numbers are never reused).
    pub version: u64,
    /// A tombstone: deleted, no live definition.
    pub deleted: bool,
    /// The stored document (live heads).
    pub doc: Option<String>,
    /// Tool ids this agent head holds counted references to.
    pub refs: Vec<String>,
    /// Agents referencing this tool head.
    pub ref_count: i64,
    /// Lifecycle status (live heads).
    pub status: Option<String>,
}

impl Head {
    /// Reads a head item; a malformed one is a backend error.
    pub fn from_item(item: &Item) -> Result<Self, StoreError> {
        let version = get_n(item, VERSION)
            .and_then(|v| u64::try_from(v).ok())
            .ok_or_else(|| corrupt(item, "version"))?;
        let refs = match item.get(REFS) {
            Some(AttributeValue::L(list)) => list
                .iter()
                .map(|v| v.as_s().cloned().map_err(|_| corrupt(item, "refs")))
                .collect::<Result<_, _>>()?,
            _ => Vec::new(),
        };
        Ok(Self {
            version,
            deleted: item.contains_key(DELETED),
            doc: get_s(item, DOC).map(str::to_owned),
            refs,
            ref_count: get_n(item, REF_COUNT).unwrap_or(0),
            status: get_s(item, STATUS).map(str::to_owned),
        })
    }

    /// The live definition of `id`, `None` for a tombstone (decoded through `cache`).
    pub fn definition(
        &self,
        cache: &Decoded,
        kind: Kind,
        id: &str,
    ) -> Result<Option<Definition>, StoreError> {
        if self.deleted {
            return Ok(None);
        }
        match &self.doc {
            Some(doc) => cache.decode(kind, id, self.version, doc).map(Some),
            None => Err(StoreError::Backend("live head item without a document".into())),
        }
    }

    /// Version of the live definition, `None` for a tombstone.
    pub fn live_version(&self) -> Option<u64> {
        (!self.deleted).then_some(self.version)
    }
}

fn corrupt(item: &Item, what: &str) -> StoreError {
    let pk = get_s(item, PK).unwrap_or("?");
    StoreError::Backend(format!("malformed item {pk}: bad or missing {what}"))
}

/// Parses a stored document.
pub fn decode_doc(doc: &str) -> Result<Definition, StoreError> {
    serde_json::from_str(doc)
        .map_err(|e| StoreError::Backend(format!("stored document does not parse: {e}")))
}

/// Serializes a definition for storage.
pub fn encode_doc(definition: &Definition) -> Result<String, StoreError> {
    let document = definition
        .storage_json()
        .map(|json| serde_json::json!({"kind": definition.kind(), "definition": json}).to_string());
    document.map_err(|e| StoreError::Backend(format!("definition does not serialize: {e}")))
}

/// A definition of `kind` from an item holding a `doc` (snapshot or live head), decoded
/// through `cache`; `None` for a tombstone.
pub fn definition_of(
    cache: &Decoded,
    kind: Kind,
    item: &Item,
) -> Result<Option<Definition>, StoreError> {
    if item.contains_key(DELETED) {
        return Ok(None);
    }
    let doc = get_s(item, DOC).ok_or_else(|| corrupt(item, "doc"))?;
    let version = get_n(item, VERSION).and_then(|v| u64::try_from(v).ok());
    match (get_s(item, ID), version) {
        (Some(id), Some(version)) => cache.decode(kind, id, version, doc).map(Some),
        // Not written by this crate: no key to cache under, decode it every time.
        _ => cache.decode_uncached(doc).map(Some),
    }
}

/// The index fields of a live definition, copied onto its head and tag items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexFields {
    /// Lifecycle status.
    pub status: &'static str,
    /// Execution type (tools).
    pub execution_type: Option<&'static str>,
    /// Creator.
    pub created_by: Option<String>,
}

impl IndexFields {
    /// The index fields of a definition.
    pub fn of(definition: &Definition) -> Self {
        Self {
            status: definition.status().as_str(),
            execution_type: definition.execution_type().map(|e| e.as_str()),
            created_by: definition.server().created_by.clone(),
        }
    }
}

/// What one tag item holds; a tag item is rewritten only when this changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagEntry {
    /// Tag value.
    pub value: String,
    /// Index fields of the definition, for filters on tag queries.
    pub fields: IndexFields,
}

/// Tag items a definition should have, by tag key.
pub fn tag_entries(definition: &Definition) -> BTreeMap<String, TagEntry> {
    let fields = IndexFields::of(definition);
    definition
        .tags()
        .map(|tags| {
            tags.iter()
                .map(|(k, v)| (k.clone(), TagEntry { value: v.clone(), fields: fields.clone() }))
                .collect()
        })
        .unwrap_or_default()
}

/// The tag item of one tag.
pub fn tag_item(kind: Kind, id: &str, key: &str, entry: &TagEntry) -> Item {
    let mut item = Item::from([
        (PK.to_owned(), s(keys::pk(kind, id))),
        (SK.to_owned(), s(tag_sk(key))),
        (ID.to_owned(), s(id)),
        (KIND.to_owned(), s(kind.as_str())),
        (TAG_KEY.to_owned(), s(key)),
        (TAG_VALUE.to_owned(), s(&entry.value)),
        (G_TAG.to_owned(), s(g_tag(kind, key))),
        (STATUS.to_owned(), s(entry.fields.status)),
    ]);
    if let Some(e) = entry.fields.execution_type {
        item.insert(EXEC.to_owned(), s(e));
    }
    if let Some(c) = &entry.fields.created_by {
        item.insert(CREATED_BY.to_owned(), s(c));
    }
    item
}

/// The immutable snapshot item of one version.
pub fn snapshot_item(kind: Kind, id: &str, version: u64, doc: &str) -> Item {
    Item::from([
        (PK.to_owned(), s(keys::pk(kind, id))),
        (SK.to_owned(), s(version_sk(version))),
        (ID.to_owned(), s(id)),
        (KIND.to_owned(), s(kind.as_str())),
        (VERSION.to_owned(), n(version)),
        (DOC.to_owned(), s(doc)),
    ])
}

/// The reference item `tool <- agent`, in the tool's partition.
pub fn ref_item(tool_id: &str, agent_id: &str) -> Item {
    Item::from([
        (PK.to_owned(), s(keys::pk(Kind::Tool, tool_id))),
        (SK.to_owned(), s(ref_sk(agent_id))),
        (AGENT_ID.to_owned(), s(agent_id)),
    ])
}

/// The primary key of an item.
pub fn key(pk: String, sk: impl Into<String>) -> Item {
    Item::from([(PK.to_owned(), s(pk)), (SK.to_owned(), s(sk))])
}
