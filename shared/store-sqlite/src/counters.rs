//! Counter records (session budgets, rate windows): read as of now, written all or
//! none, each only on the version it was read at.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::error::Db;
use registry_store::{Counter, StoreError};

/// The live counters `keys` at `now`, in order.
pub(crate) fn get(
    conn: &Connection,
    keys: &[String],
    now: i64,
) -> Result<Vec<Option<Counter>>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT version, value, expires_at FROM counters WHERE key = ?1 AND expires_at > ?2",
        )
        .db()?;
    keys.iter()
        .map(|key| {
            let row = stmt
                .query_row(params![key, now], |row| {
                    Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?, row.get::<_, i64>(2)?))
                })
                .optional()
                .db()?;
            row.map(|(version, value, expires_at)| {
                let value = serde_json::from_str(&value)
                    .map_err(|e| StoreError::Backend(format!("counter `{key}` is corrupt: {e}")))?;
                Ok(Counter {
                    key: key.clone(),
                    version: u64::try_from(version).unwrap_or(0),
                    value,
                    expires_at,
                })
            })
            .transpose()
        })
        .collect()
}

/// Writes `writes` in one transaction, each only on the version before it.
pub(crate) fn put(conn: &mut Connection, writes: &[Counter], now: i64) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).db()?;
    for w in writes {
        let current: Option<i64> = tx
            .query_row(
                "SELECT version FROM counters WHERE key = ?1 AND expires_at > ?2",
                params![w.key, now],
                |row| row.get(0),
            )
            .optional()
            .db()?;
        let current = current.map_or(0, |v| u64::try_from(v).unwrap_or(0));
        if current != w.expected() {
            return Err(StoreError::VersionMismatch {
                expected: w.expected(),
                current: Some(current),
            });
        }
        let version = i64::try_from(w.version)
            .map_err(|_| StoreError::Backend("counter version overflow".into()))?;
        tx.execute(
            "INSERT INTO counters (key, version, value, expires_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (key) DO UPDATE SET version = excluded.version, value = excluded.value,
             expires_at = excluded.expires_at",
            params![w.key, version, w.value.to_string(), w.expires_at],
        )
        .db()?;
    }
    // expired records go on every write, so the table holds live sessions only
    tx.execute("DELETE FROM counters WHERE expires_at <= ?1", params![now]).db()?;
    tx.commit().db()
}
