//! Proposals: one row each, written conditionally on their revision, always with an
//! event in the same transaction.

use crate::document::documents;
use crate::error::{Db, corrupt};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use registry_store::{Page, Proposal, ProposalQuery, StoreError};

fn to_i64(value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::Backend(format!("revision {value} too large")))
}

fn parse(document: &str) -> Result<Proposal, StoreError> {
    serde_json::from_str(document).map_err(|e| corrupt("proposal", e))
}

/// Stores `proposal` inside the caller's transaction if the stored revision is
/// `expected` (`None`: no proposal with its id), with the next revision.
pub(crate) fn save(
    tx: &Transaction<'_>,
    mut proposal: Proposal,
    expected: Option<u64>,
) -> Result<Proposal, StoreError> {
    let current = tx
        .prepare_cached("SELECT revision FROM proposals WHERE id = ?1")
        .db()?
        .query_row(params![proposal.id], |row| row.get::<_, i64>(0))
        .optional()
        .db()?
        .map(i64::unsigned_abs);
    match (expected, current) {
        (None, Some(current)) => return Err(StoreError::AlreadyExists { current }),
        (Some(_), None) => return Err(StoreError::NotFound),
        (Some(expected), Some(current)) if expected != current => {
            return Err(StoreError::VersionMismatch { expected, current: Some(current) });
        }
        _ => {}
    }
    proposal.revision = expected.unwrap_or(0) + 1;
    let document = serde_json::to_string(&proposal)
        .map_err(|e| StoreError::Backend(format!("cannot serialize proposal: {e}")))?;
    tx.prepare_cached(
        "INSERT INTO proposals (id, kind, definition_id, state, revision, document)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (id) DO UPDATE SET state = excluded.state, revision = excluded.revision,
             document = excluded.document",
    )
    .db()?
    .execute(params![
        proposal.id,
        proposal.kind.as_str(),
        proposal.definition_id,
        proposal.state.as_str(),
        to_i64(proposal.revision)?,
        document
    ])
    .db()?;
    Ok(proposal)
}

/// One proposal by id.
pub(crate) fn get(conn: &Connection, id: &str) -> Result<Option<Proposal>, StoreError> {
    let document = conn
        .prepare_cached("SELECT document FROM proposals WHERE id = ?1")
        .db()?
        .query_row(params![id], |row| row.get::<_, String>(0))
        .optional()
        .db()?;
    document.as_deref().map(parse).transpose()
}

/// One page of proposals by id.
pub(crate) fn list(conn: &Connection, query: &ProposalQuery) -> Result<Page<Proposal>, StoreError> {
    let limit = query.limit.clamp(1, 100);
    let documents = documents(
        conn,
        "SELECT document FROM proposals
         WHERE (?1 IS NULL OR id > ?1) AND (?2 IS NULL OR state = ?2)
           AND (?3 IS NULL OR kind = ?3) AND (?4 IS NULL OR definition_id = ?4)
         ORDER BY id LIMIT ?5",
        params![
            query.after,
            query.state.map(|s| s.as_str()),
            query.kind.map(|k| k.as_str()),
            query.id,
            limit + 1
        ],
    )?;
    let mut items = documents.iter().map(|d| parse(d)).collect::<Result<Vec<_>, _>>()?;
    let next_cursor = if items.len() > limit as usize {
        items.truncate(limit as usize);
        items.last().map(|p| p.id.clone())
    } else {
        None
    };
    Ok(Page { items, next_cursor })
}
