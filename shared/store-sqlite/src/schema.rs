//! The database schema and its migrations, tracked in `PRAGMA user_version`.

use crate::error::Db;
use rusqlite::{Connection, TransactionBehavior};

use registry_store::StoreError;

/// Migration `i` moves the schema from version `i` to `i + 1`. Append only.
const MIGRATIONS: &[&str] = &[
    // 1: heads, immutable snapshots, tag index, agent->tool references.
    r#"
    CREATE TABLE heads (
        kind           TEXT    NOT NULL,
        id             TEXT    NOT NULL,
        version        INTEGER NOT NULL,
        deleted        INTEGER NOT NULL DEFAULT 0,
        status         TEXT    NOT NULL,
        execution_type TEXT,
        created_by     TEXT,
        document       TEXT,
        PRIMARY KEY (kind, id)
    ) WITHOUT ROWID;

    CREATE TABLE versions (
        kind     TEXT    NOT NULL,
        id       TEXT    NOT NULL,
        version  INTEGER NOT NULL,
        document TEXT    NOT NULL,
        PRIMARY KEY (kind, id, version)
    ) WITHOUT ROWID;

    CREATE TRIGGER versions_immutable BEFORE UPDATE ON versions
    BEGIN
        SELECT RAISE(ABORT, 'version snapshots are immutable');
    END;

    CREATE TABLE tags (
        kind  TEXT NOT NULL,
        id    TEXT NOT NULL,
        key   TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (kind, id, key)
    ) WITHOUT ROWID;
    CREATE INDEX tags_by_key ON tags (kind, key, value, id);

    CREATE TABLE refs (
        agent_id TEXT NOT NULL,
        tool_id  TEXT NOT NULL,
        PRIMARY KEY (agent_id, tool_id)
    ) WITHOUT ROWID;
    CREATE INDEX refs_by_tool ON refs (tool_id, agent_id);
    "#,
    // 2: the audit event stream and proposals (reviewed changes).
    r#"
    CREATE TABLE events (
        seq      INTEGER NOT NULL PRIMARY KEY,
        kind     TEXT    NOT NULL,
        id       TEXT    NOT NULL,
        actor    TEXT    NOT NULL,
        action   TEXT    NOT NULL,
        document TEXT    NOT NULL
    );

    CREATE TRIGGER events_immutable BEFORE UPDATE ON events
    BEGIN
        SELECT RAISE(ABORT, 'events are immutable');
    END;

    CREATE TRIGGER events_append_only BEFORE DELETE ON events
    BEGIN
        SELECT RAISE(ABORT, 'events are append-only');
    END;

    CREATE TABLE proposals (
        id            TEXT    NOT NULL PRIMARY KEY,
        kind          TEXT    NOT NULL,
        definition_id TEXT    NOT NULL,
        state         TEXT    NOT NULL,
        revision      INTEGER NOT NULL,
        document      TEXT    NOT NULL
    ) WITHOUT ROWID;
    "#,
    // 3: counters (session budgets and rate windows), written on the version read.
    r#"
    CREATE TABLE counters (
        key        TEXT    NOT NULL PRIMARY KEY,
        version    INTEGER NOT NULL,
        value      TEXT    NOT NULL,
        expires_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    "#,
];

/// The schema version (`PRAGMA user_version`) this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Brings the database up to [`SCHEMA_VERSION`], one transaction per migration.
/// A database written by a newer build is refused rather than misread.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).db()?;
        let current: u32 = tx.query_row("PRAGMA user_version", [], |row| row.get(0)).db()?;
        if current > SCHEMA_VERSION {
            return Err(StoreError::Backend(format!(
                "database schema version {current} is newer than this build ({SCHEMA_VERSION})"
            )));
        }
        let Some(step) = MIGRATIONS.get(current as usize) else {
            return Ok(());
        };
        tx.execute_batch(step).db()?;
        tx.pragma_update(None, "user_version", current + 1).db()?;
        tx.commit().db()?;
    }
}
