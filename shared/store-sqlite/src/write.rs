//! Writes: every put and delete is one `BEGIN IMMEDIATE` transaction that checks the
//! expected version and changes head, snapshot, tags and references together, and
//! appends the change's event (and, for an applied proposal, stores the proposal).

use crate::error::Db;
use registry_core::{Definition, Kind, LifecycleStatus};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use super::document::{from_document, to_document};
use super::read::referrers;
use crate::{events, proposals};
use registry_store::{
    Action, Change, EventDraft, Expected, Proposal, StoreError, changed_pointers,
};

/// The head row of a definition, live or tombstone.
struct Head {
    version: u64,
    deleted: bool,
    status: String,
}

impl Head {
    /// The live version, `None` for a tombstone.
    fn live_version(&self) -> Option<u64> {
        (!self.deleted).then_some(self.version)
    }
}

fn to_u64(value: i64) -> Result<u64, StoreError> {
    u64::try_from(value).map_err(|_| StoreError::Backend(format!("negative version {value}")))
}

fn to_i64(value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::Backend(format!("version {value} too large")))
}

fn head(tx: &Transaction<'_>, kind: Kind, id: &str) -> Result<Option<Head>, StoreError> {
    let row = tx
        .prepare_cached("SELECT version, deleted, status FROM heads WHERE kind = ?1 AND id = ?2")
        .db()?
        .query_row(params![kind.as_str(), id], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, bool>(1)?, row.get::<_, String>(2)?))
        })
        .optional()
        .db()?;
    row.map(|(version, deleted, status)| Ok(Head { version: to_u64(version)?, deleted, status }))
        .transpose()
}

/// The version the write creates, or why the expected state does not hold.
fn next_version(current: Option<&Head>, expected: Expected) -> Result<u64, StoreError> {
    let live = current.and_then(Head::live_version);
    match (expected, live) {
        (Expected::Absent, Some(current)) => Err(StoreError::AlreadyExists { current }),
        (Expected::Absent, None) => Ok(current.map_or(0, |h| h.version) + 1),
        (Expected::Version(n), Some(current)) if n == current => Ok(current + 1),
        (Expected::Version(expected), current) => {
            Err(StoreError::VersionMismatch { expected, current })
        }
    }
}

/// The live definition as stored, for the event's changed pointers.
fn live_definition(
    tx: &Transaction<'_>,
    kind: Kind,
    id: &str,
) -> Result<Option<Definition>, StoreError> {
    let document = tx
        .prepare_cached("SELECT document FROM heads WHERE kind = ?1 AND id = ?2 AND deleted = 0")
        .db()?
        .query_row(params![kind.as_str(), id], |row| row.get::<_, String>(0))
        .optional()
        .db()?;
    document.map(|d| from_document(kind, &d)).transpose()
}

/// Every referenced tool must be live and not retired.
fn check_references(tx: &Transaction<'_>, refs: &[String]) -> Result<(), StoreError> {
    let mut missing = Vec::new();
    let mut retired = Vec::new();
    for tool_id in refs {
        match head(tx, Kind::Tool, tool_id)? {
            Some(h) if !h.deleted && h.status == LifecycleStatus::Retired.as_str() => {
                retired.push(tool_id.clone())
            }
            Some(h) if !h.deleted => {}
            _ => missing.push(tool_id.clone()),
        }
    }
    if missing.is_empty() && retired.is_empty() {
        Ok(())
    } else {
        Err(StoreError::BadReferences { missing, retired })
    }
}

/// Replaces the tag rows of a definition.
fn write_tags(tx: &Transaction<'_>, definition: &Definition) -> Result<(), StoreError> {
    let kind = definition.kind().as_str();
    let id = definition.id();
    tx.prepare_cached("DELETE FROM tags WHERE kind = ?1 AND id = ?2")
        .db()?
        .execute(params![kind, id])
        .db()?;
    let mut insert = tx
        .prepare_cached("INSERT INTO tags (kind, id, key, value) VALUES (?1, ?2, ?3, ?4)")
        .db()?;
    for (key, value) in definition.tags().into_iter().flatten() {
        insert.execute(params![kind, id, key, value]).db()?;
    }
    Ok(())
}

/// Replaces the reference rows of an agent.
fn write_refs(tx: &Transaction<'_>, agent_id: &str, refs: &[String]) -> Result<(), StoreError> {
    tx.prepare_cached("DELETE FROM refs WHERE agent_id = ?1")
        .db()?
        .execute(params![agent_id])
        .db()?;
    let mut insert =
        tx.prepare_cached("INSERT INTO refs (agent_id, tool_id) VALUES (?1, ?2)").db()?;
    for tool_id in refs {
        insert.execute(params![agent_id, tool_id]).db()?;
    }
    Ok(())
}

/// Writes a new version of `definition` if the stored state matches `expected`.
pub(crate) fn put(
    conn: &mut Connection,
    mut definition: Definition,
    expected: Expected,
    change: Change,
) -> Result<Definition, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).db()?;
    let kind = definition.kind();
    let id = definition.id().to_owned();
    let current = head(&tx, kind, &id)?;
    let version = next_version(current.as_ref(), expected)?;
    let refs = definition.references();
    check_references(&tx, &refs)?;
    let before = match current.as_ref().and_then(Head::live_version) {
        Some(_) => live_definition(&tx, kind, &id)?,
        None => None,
    };

    definition.server_mut().version = Some(version);
    let document = to_document(&definition)?;
    let version_col = to_i64(version)?;
    tx.prepare_cached(
        "INSERT INTO heads (kind, id, version, deleted, status, execution_type, created_by, document)
         VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7)
         ON CONFLICT (kind, id) DO UPDATE SET
             version = excluded.version, deleted = 0, status = excluded.status,
             execution_type = excluded.execution_type, created_by = excluded.created_by,
             document = excluded.document",
    ).db()?
    .execute(params![
        kind.as_str(),
        id,
        version_col,
        definition.status().as_str(),
        definition.execution_type().map(|t| t.as_str()),
        definition.server().created_by,
        document,
    ]).db()?;
    tx.prepare_cached("INSERT INTO versions (kind, id, version, document) VALUES (?1, ?2, ?3, ?4)")
        .db()?
        .execute(params![kind.as_str(), id, version_col, document])
        .db()?;
    write_tags(&tx, &definition)?;
    if kind == Kind::Agent {
        write_refs(&tx, &id, &refs)?;
    }
    let proposal = match change.proposal {
        Some(update) => {
            Some(proposals::save(&tx, update.proposal, Some(update.expected_revision))?.id)
        }
        None => None,
    };
    events::append(
        &tx,
        EventDraft {
            actor: change.actor,
            action: change.action,
            kind,
            id,
            proposal,
            version_before: current.as_ref().and_then(Head::live_version),
            version_after: Some(version),
            changed: changed_pointers(before.as_ref(), Some(&definition)),
        },
    )?;
    tx.commit().db()?;
    Ok(definition)
}

/// Stores a proposal with its event, in one transaction.
pub(crate) fn save_proposal(
    conn: &mut Connection,
    proposal: Proposal,
    expected: Option<u64>,
    event: EventDraft,
) -> Result<Proposal, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).db()?;
    let saved = proposals::save(&tx, proposal, expected)?;
    events::append(&tx, event)?;
    tx.commit().db()?;
    Ok(saved)
}

/// Deletes the live definition at `expected_version`, leaving a tombstone head.
pub(crate) fn delete(
    conn: &mut Connection,
    kind: Kind,
    id: &str,
    expected_version: u64,
    actor: &str,
) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).db()?;
    let Some(current) = head(&tx, kind, id)?.filter(|h| !h.deleted) else {
        return Err(StoreError::NotFound);
    };
    if current.version != expected_version {
        return Err(StoreError::VersionMismatch {
            expected: expected_version,
            current: Some(current.version),
        });
    }
    if kind == Kind::Tool && current.status != LifecycleStatus::Retired.as_str() {
        let agents = referrers(&tx, id)?;
        if !agents.is_empty() {
            return Err(StoreError::InUse { agents });
        }
    }
    tx.prepare_cached(
        "UPDATE heads SET version = ?3, deleted = 1, document = NULL WHERE kind = ?1 AND id = ?2",
    )
    .db()?
    .execute(params![kind.as_str(), id, to_i64(current.version + 1)?])
    .db()?;
    tx.prepare_cached("DELETE FROM tags WHERE kind = ?1 AND id = ?2")
        .db()?
        .execute(params![kind.as_str(), id])
        .db()?;
    if kind == Kind::Agent {
        tx.prepare_cached("DELETE FROM refs WHERE agent_id = ?1")
            .db()?
            .execute(params![id])
            .db()?;
    }
    events::append(
        &tx,
        EventDraft {
            actor: actor.to_owned(),
            action: Action::Delete,
            kind,
            id: id.to_owned(),
            proposal: None,
            version_before: Some(current.version),
            version_after: None,
            changed: Vec::new(),
        },
    )?;
    tx.commit().db()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(version: u64, deleted: bool) -> Head {
        Head { version, deleted, status: "active".into() }
    }

    #[test]
    fn next_version_rules() {
        assert_eq!(next_version(None, Expected::Absent).unwrap(), 1);
        assert_eq!(next_version(Some(&h(3, true)), Expected::Absent).unwrap(), 4);
        assert!(matches!(
            next_version(Some(&h(3, false)), Expected::Absent),
            Err(StoreError::AlreadyExists { current: 3 })
        ));
        assert_eq!(next_version(Some(&h(3, false)), Expected::Version(3)).unwrap(), 4);
        assert!(matches!(
            next_version(Some(&h(3, false)), Expected::Version(2)),
            Err(StoreError::VersionMismatch { expected: 2, current: Some(3) })
        ));
        assert!(matches!(
            next_version(Some(&h(3, true)), Expected::Version(3)),
            Err(StoreError::VersionMismatch { expected: 3, current: None })
        ));
        assert!(matches!(
            next_version(None, Expected::Version(1)),
            Err(StoreError::VersionMismatch { expected: 1, current: None })
        ));
    }
}
