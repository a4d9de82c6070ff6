//! The event stream: appended inside a write's transaction, read in pages by sequence.

use crate::document::documents;
use crate::error::{Db, corrupt};
use chrono::{SubsecRound, Utc};
use rusqlite::{Connection, Transaction, params};

use registry_store::{Event, EventDraft, EventPage, EventQuery, StoreError, event_page_size};

fn to_i64(value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::Backend(format!("sequence {value} too large")))
}

/// Appends `draft` as the next event, inside the caller's write transaction (which holds
/// SQLite's write lock, so sequence numbers follow commit order without gaps).
pub(crate) fn append(tx: &Transaction<'_>, draft: EventDraft) -> Result<Event, StoreError> {
    let last: i64 =
        tx.query_row("SELECT COALESCE(MAX(seq), 0) FROM events", [], |row| row.get(0)).db()?;
    let event = draft.into_event(last.unsigned_abs() + 1, Utc::now().trunc_subsecs(3));
    let document = serde_json::to_string(&event)
        .map_err(|e| StoreError::Backend(format!("cannot serialize event: {e}")))?;
    tx.prepare_cached(
        "INSERT INTO events (seq, kind, id, actor, action, document) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .db()?
    .execute(params![
        to_i64(event.seq)?,
        event.kind.as_str(),
        event.id,
        event.actor,
        event.action.as_str(),
        document
    ])
    .db()?;
    Ok(event)
}

/// One page of events after `query.after`. The newest sequence number is read first and
/// bounds the page: every event up to it has committed (writes are serialised), so a
/// page that is not full has considered all of them.
pub(crate) fn page(conn: &Connection, query: &EventQuery) -> Result<EventPage, StoreError> {
    // A cursor past every storable sequence number simply has nothing after it.
    let Ok(after) = i64::try_from(query.after) else {
        return Ok(EventPage { events: Vec::new(), last: query.after });
    };
    let newest: i64 =
        conn.query_row("SELECT COALESCE(MAX(seq), 0) FROM events", [], |row| row.get(0)).db()?;
    let limit = event_page_size(query.limit);
    let documents = documents(
        conn,
        "SELECT document FROM events
         WHERE seq > ?1 AND seq <= ?2
           AND (?3 IS NULL OR kind = ?3) AND (?4 IS NULL OR id = ?4)
           AND (?5 IS NULL OR actor = ?5) AND (?6 IS NULL OR action = ?6)
         ORDER BY seq LIMIT ?7",
        params![
            after,
            newest,
            query.kind.map(|k| k.as_str()),
            query.id,
            query.actor,
            query.action.map(|a| a.as_str()),
            limit
        ],
    )?;
    let mut events = Vec::new();
    for document in documents {
        events.push(serde_json::from_str::<Event>(&document).map_err(|e| corrupt("event", e))?);
    }
    let full = events.len() >= limit as usize;
    let last = match events.last() {
        Some(event) if full => event.seq,
        _ => newest.unsigned_abs().max(query.after),
    };
    Ok(EventPage { events, last })
}
