//! Reads: heads, filtered pages of heads, version snapshots, referrers.

use std::sync::Arc;

use crate::error::Db;
use registry_core::{Definition, Kind};
use rusqlite::{Connection, OptionalExtension, params};

use super::document::from_document;
use crate::connections::Reader;
use crate::cursor;
use crate::decoded::Decoded;
use crate::heads::Heads;
use registry_store::{ListQuery, Page, Referenced, StoreError};

/// A head row: the decoded definition when `decoded` had its version, else the
/// document to decode.
enum Row {
    Hit(Arc<Definition>),
    Miss(u64, String),
}

/// Reads a head row's version, then its document only when `decoded` lacks it.
fn row(decoded: &Decoded, kind: Kind, id: &str, row: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    let version = row.get::<_, i64>(0)?.unsigned_abs();
    Ok(match decoded.get(kind, id, version) {
        Some(definition) => Row::Hit(definition),
        None => Row::Miss(version, row.get(1)?),
    })
}

/// The definition of a head row, decoding (and remembering) it on a miss.
fn definition(
    decoded: &Decoded,
    kind: Kind,
    id: &str,
    row: Row,
) -> Result<Arc<Definition>, StoreError> {
    match row {
        Row::Hit(definition) => Ok(definition),
        Row::Miss(version, document) => {
            let definition = Arc::new(from_document(kind, &document)?);
            decoded.put(kind, id, version, &definition);
            Ok(definition)
        }
    }
}

/// The live head of a definition, read from SQLite.
fn query(
    conn: &Connection,
    decoded: &Decoded,
    kind: Kind,
    id: &str,
) -> Result<Option<Arc<Definition>>, StoreError> {
    let found = conn
        .prepare_cached(
            "SELECT version, document FROM heads WHERE kind = ?1 AND id = ?2 AND deleted = 0",
        )
        .db()?
        .query_row(params![kind.as_str(), id], |r| row(decoded, kind, id, r))
        .optional()
        .db()?;
    found.map(|r| definition(decoded, kind, id, r)).transpose()
}

/// The live head of a definition: from the reader's heads when nothing was committed
/// since it read them (`heads` synced by the caller), else from SQLite.
fn lookup(
    conn: &Connection,
    heads: &mut Heads,
    decoded: &Decoded,
    kind: Kind,
    id: &str,
) -> Result<Option<Arc<Definition>>, StoreError> {
    if let Some(found) = heads.get(kind, id) {
        return Ok(found);
    }
    let found = query(conn, decoded, kind, id)?;
    heads.put(kind, id, &found);
    Ok(found)
}

/// The live head of a definition.
pub(crate) fn get(
    reader: &mut Reader,
    decoded: &Decoded,
    kind: Kind,
    id: &str,
) -> Result<Option<Arc<Definition>>, StoreError> {
    let Reader { conn, heads } = reader;
    heads.sync(conn)?;
    lookup(conn, heads, decoded, kind, id)
}

/// What `remembered` finds in the reader's heads when nothing was committed since they
/// were read (they are one state), else what `read` reads in one read transaction: its
/// snapshot starts at its own `data_version` check, so the remembered and the freshly
/// read heads it combines are of one state too.
fn one_state<T>(
    reader: &mut Reader,
    remembered: impl FnOnce(&mut Heads) -> Option<T>,
    read: impl FnOnce(&Connection, &mut Heads) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let Reader { conn, heads } = reader;
    heads.sync(conn)?;
    if let Some(found) = remembered(heads) {
        return Ok(found);
    }
    let tx = conn.unchecked_transaction().db()?;
    heads.sync(&tx)?;
    let found = read(&tx, heads)?;
    tx.finish().db()?;
    Ok(found)
}

/// The live head of a definition and the live heads of the tools it references, from
/// one state; `None` when it is not live. Validation bounds an agent's references
/// (`MAX_TOOLS`, at most `INLINE_BATCH`), so this is bounded work, like a `get_many` of
/// an inline batch.
pub(crate) fn get_with_references(
    reader: &mut Reader,
    decoded: &Decoded,
    kind: Kind,
    id: &str,
) -> Result<Option<Referenced>, StoreError> {
    one_state(
        reader,
        |heads| match heads.get(kind, id)? {
            None => Some(None),
            Some(head) => {
                let references = heads.references(kind, id, &head);
                let tools =
                    references.iter().map(|r| heads.get(Kind::Tool, r)).collect::<Option<_>>()?;
                Some(Some(Referenced { head, references, tools }))
            }
        },
        // the head is looked up again: a commit may have come before this check
        |conn, heads| {
            let Some(head) = lookup(conn, heads, decoded, kind, id)? else { return Ok(None) };
            let references = heads.references(kind, id, &head);
            let tools = references
                .iter()
                .map(|r| lookup(conn, heads, decoded, Kind::Tool, r))
                .collect::<Result<_, _>>()?;
            Ok(Some(Referenced { head, references, tools }))
        },
    )
}

/// Live heads of many definitions, in the order asked, from one state.
pub(crate) fn get_many(
    reader: &mut Reader,
    decoded: &Decoded,
    kind: Kind,
    ids: &[String],
) -> Result<Vec<Option<Arc<Definition>>>, StoreError> {
    one_state(
        reader,
        |heads| ids.iter().map(|id| heads.get(kind, id)).collect(),
        |conn, heads| ids.iter().map(|id| lookup(conn, heads, decoded, kind, id)).collect(),
    )
}

/// One page of live heads ordered by id (byte order), all filters combined with AND.
/// A `name` is a range of the primary key: ids after `<name>@` and before `<name>A`
/// (`A` follows `@`), which are exactly those starting with `<name>@`.
pub(crate) fn list(
    conn: &Connection,
    decoded: &Decoded,
    kind: Kind,
    query: &ListQuery,
) -> Result<Page<Arc<Definition>>, StoreError> {
    let after = query.cursor.as_deref().map(|c| cursor::decode_list(kind, c)).transpose()?;
    let limit = cursor::page_size(query.limit);
    let filter = &query.filter;
    let tag = filter.tag.as_ref();
    let mut stmt = conn
        .prepare_cached(
            "SELECT h.version, h.document, h.id FROM heads h
         WHERE h.kind = ?1 AND h.deleted = 0
           AND (?2 IS NULL OR h.id > ?2)
           AND (?3 IS NULL OR h.status = ?3)
           AND (?4 IS NULL OR h.execution_type = ?4)
           AND (?5 IS NULL OR h.created_by = ?5)
           AND (?6 IS NULL OR EXISTS (
                 SELECT 1 FROM tags t
                 WHERE t.kind = h.kind AND t.id = h.id AND t.key = ?6
                   AND (?7 IS NULL OR t.value = ?7)))
           AND (?9 IS NULL OR (h.kind = 'tool' AND h.id > ?9 || '@' AND h.id < ?9 || 'A'))
         ORDER BY h.id
         LIMIT ?8",
        )
        .db()?;
    let rows = stmt
        .query_map(
            params![
                kind.as_str(),
                after,
                filter.status.map(|s| s.as_str()),
                filter.execution_type.map(|t| t.as_str()),
                filter.created_by,
                tag.map(|t| &t.key),
                tag.and_then(|t| t.value.as_ref()),
                i64::from(limit) + 1,
                filter.name,
            ],
            |r| {
                let id = r.get::<_, String>(2)?;
                let found = row(decoded, kind, &id, r)?;
                Ok((id, found))
            },
        )
        .db()?;
    let rows = rows.collect::<Result<Vec<_>, _>>().db()?;
    let more = rows.len() > limit as usize;
    let mut items = Vec::with_capacity(rows.len().min(limit as usize));
    let mut last_id = None;
    for (id, found) in rows.into_iter().take(limit as usize) {
        items.push(definition(decoded, kind, &id, found)?);
        last_id = Some(id);
    }
    let next_cursor = match (more, last_id) {
        (true, Some(id)) => Some(cursor::encode_list(kind, &id)),
        _ => None,
    };
    Ok(Page { items, next_cursor })
}

/// One page of version snapshots, oldest first; empty for an id never stored.
pub(crate) fn versions(
    conn: &Connection,
    kind: Kind,
    id: &str,
    query: &ListQuery,
) -> Result<Page<Definition>, StoreError> {
    let after = query.cursor.as_deref().map(cursor::decode_version).transpose()?.unwrap_or(0);
    // A cursor past every storable version simply has nothing after it.
    let Ok(after) = i64::try_from(after) else {
        return Ok(Page { items: Vec::new(), next_cursor: None });
    };
    let limit = cursor::page_size(query.limit);
    let mut stmt = conn
        .prepare_cached(
            "SELECT version, document FROM versions
         WHERE kind = ?1 AND id = ?2 AND version > ?3
         ORDER BY version LIMIT ?4",
        )
        .db()?;
    let rows = stmt
        .query_map(params![kind.as_str(), id, after, i64::from(limit) + 1], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })
        .db()?
        .collect::<Result<Vec<_>, _>>()
        .db()?;
    let more = rows.len() > limit as usize;
    let mut items = Vec::with_capacity(rows.len().min(limit as usize));
    let mut last_version = None;
    for (version, document) in rows.into_iter().take(limit as usize) {
        items.push(from_document(kind, &document)?);
        last_version = Some(version);
    }
    let next_cursor = match (more, last_version) {
        (true, Some(v)) => Some(cursor::encode_version(v.unsigned_abs())),
        _ => None,
    };
    Ok(Page { items, next_cursor })
}

/// One version snapshot.
pub(crate) fn version(
    conn: &Connection,
    kind: Kind,
    id: &str,
    version: u64,
) -> Result<Option<Definition>, StoreError> {
    let Ok(version) = i64::try_from(version) else {
        return Ok(None);
    };
    let document: Option<String> = conn
        .prepare_cached(
            "SELECT document FROM versions WHERE kind = ?1 AND id = ?2 AND version = ?3",
        )
        .db()?
        .query_row(params![kind.as_str(), id, version], |row| row.get(0))
        .optional()
        .db()?;
    document.map(|d| from_document(kind, &d)).transpose()
}

/// Live agents referencing `tool_id`, sorted.
pub(crate) fn referrers(conn: &Connection, tool_id: &str) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT r.agent_id FROM refs r
         JOIN heads h ON h.kind = 'agent' AND h.id = r.agent_id AND h.deleted = 0
         WHERE r.tool_id = ?1 ORDER BY r.agent_id",
        )
        .db()?;
    let ids = stmt.query_map(params![tool_id], |row| row.get(0)).db()?;
    ids.collect::<Result<Vec<String>, _>>().db()
}
