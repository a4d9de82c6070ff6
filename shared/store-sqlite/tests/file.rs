//! SQLite-specific behaviour: the file, its schema, and failures that are not the
//! caller's fault.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use registry_core::{Kind, LifecycleStatus};
use registry_store::contract::sample::{agent, tool, with_status};
use registry_store::{Expected, Store, StoreError};
use registry_store_sqlite::{SCHEMA_VERSION, SqliteStore};
use rusqlite::Connection;

/// A fresh database file and two handles on it, as two processes would have.
fn two_handles() -> (tempfile::TempDir, std::path::PathBuf, SqliteStore, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    let (one, two) = (SqliteStore::open(&path).unwrap(), SqliteStore::open(&path).unwrap());
    (dir, path, one, two)
}

/// A database file in a fresh directory, opened, holding tool `t1` at version 1.
async fn stored_t1() -> (tempfile::TempDir, std::path::PathBuf, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    let store = SqliteStore::open(&path).unwrap();
    store.put(tool("t1"), Expected::Absent).await.unwrap();
    (dir, path, store)
}

#[tokio::test]
async fn data_survives_reopening_and_numbering_continues() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir/registry.db");
    let store = SqliteStore::open(&path).unwrap();
    store.put(tool("t1"), Expected::Absent).await.unwrap();
    store.put(tool("t1"), Expected::Version(1)).await.unwrap();
    drop(store);

    let store = SqliteStore::open(&path).unwrap();
    let head = store.get(Kind::Tool, "t1").await.unwrap().unwrap();
    assert_eq!(head.version(), 2);
    store.delete(Kind::Tool, "t1", 2).await.unwrap();
    drop(store);

    let store = SqliteStore::open(&path).unwrap();
    assert!(store.get(Kind::Tool, "t1").await.unwrap().is_none());
    let again = store.put(tool("t1"), Expected::Absent).await.unwrap();
    assert_eq!(again.version(), 4, "after v2 and the tombstone v3");
}

#[tokio::test]
async fn schema_version_and_wal_are_set() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    let _store = SqliteStore::open(&path).unwrap();
    let conn = Connection::open(&path).unwrap();
    let version: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
}

#[tokio::test]
async fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    drop(SqliteStore::open(&path).unwrap());
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Backend(ref m) if m.contains("newer")), "got {err:?}");
}

#[tokio::test]
async fn a_file_that_is_not_a_database_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    std::fs::write(&path, b"this is not a sqlite database, just some text.....").unwrap();
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Backend(_)), "got {err:?}");
}

#[tokio::test]
async fn snapshots_are_immutable_in_the_database() {
    let (_dir, path, _store) = stored_t1().await;
    let conn = Connection::open(&path).unwrap();
    let err = conn.execute("UPDATE versions SET document = '{}'", []).unwrap_err();
    assert!(err.to_string().contains("immutable"), "got {err}");
}

#[tokio::test]
async fn an_unreadable_stored_document_is_a_backend_error() {
    let (_dir, path, store) = stored_t1().await;
    Connection::open(&path).unwrap().execute("UPDATE heads SET document = '{'", []).unwrap();
    let err = store.get(Kind::Tool, "t1").await.unwrap_err();
    assert!(matches!(err, StoreError::Backend(_)), "got {err:?}");
}

#[tokio::test]
async fn index_columns_follow_the_document() {
    let (_dir, path, store) = stored_t1().await;
    store
        .put(with_status(tool("t1"), LifecycleStatus::Retired), Expected::Version(1))
        .await
        .unwrap();
    let conn = Connection::open(&path).unwrap();
    let row: (i64, String, String) = conn
        .query_row("SELECT version, status, execution_type FROM heads WHERE id = 't1'", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(row, (2, "retired".to_owned(), "lambda".to_owned()));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_database_locked_by_another_process_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    let store = SqliteStore::open(&path).unwrap();
    let other = Connection::open(&path).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let err = store.put(tool("t1"), Expected::Absent).await.unwrap_err();
    assert!(matches!(err, StoreError::Unavailable(_)), "got {err:?}");
    other.execute_batch("ROLLBACK").unwrap();
    store.put(tool("t1"), Expected::Absent).await.unwrap();
}

/// Decoded definitions are cached by (id, version): another handle on the same file
/// (another process) changing, deleting and recreating a definition is seen at once.
#[tokio::test]
async fn the_decoded_cache_follows_writes_made_elsewhere() {
    let (_dir, _path, writer, reader) = two_handles();
    let with_description = |text: &str| {
        let mut t = tool("t1");
        if let registry_core::Definition::Tool(tool) = &mut t {
            tool.description = text.to_owned();
        }
        t
    };
    writer.put(with_description("first"), Expected::Absent).await.unwrap();
    let description = |d: Option<registry_core::Definition>| match d {
        Some(registry_core::Definition::Tool(t)) => Some((t.description, t.server.version)),
        _ => None,
    };
    for _ in 0..2 {
        let got = reader.get(Kind::Tool, "t1").await.unwrap();
        assert_eq!(description(got), Some(("first".to_owned(), Some(1))));
    }
    writer.put(with_description("second"), Expected::Version(1)).await.unwrap();
    let got = reader.get(Kind::Tool, "t1").await.unwrap();
    assert_eq!(description(got), Some(("second".to_owned(), Some(2))));
    let listed = reader.list(Kind::Tool, &registry_store::ListQuery::default()).await.unwrap();
    assert_eq!(description(listed.items.into_iter().next()), Some(("second".to_owned(), Some(2))));

    writer.delete(Kind::Tool, "t1", 2).await.unwrap();
    assert!(reader.get(Kind::Tool, "t1").await.unwrap().is_none());
    writer.put(with_description("third"), Expected::Absent).await.unwrap();
    let got = reader.get_many(Kind::Tool, &["t1".to_owned()]).await.unwrap();
    assert_eq!(description(got.into_iter().next().flatten()), Some(("third".to_owned(), Some(4))));
}

/// Reader connections remember the heads they read until anything commits (`PRAGMA
/// data_version`): a write through the same handle, through another handle, or by a
/// plain SQLite connection is seen by the next point read and the next batch.
#[tokio::test]
async fn remembered_heads_are_dropped_on_any_commit() {
    let (_dir, path, store, other) = two_handles();
    let ids = ["t1".to_owned(), "t2".to_owned()];
    let versions = |found: Vec<Option<registry_core::Definition>>| {
        found.into_iter().map(|d| d.map(|d| d.version())).collect::<Vec<_>>()
    };
    store.put(tool("t1"), Expected::Absent).await.unwrap();
    for _ in 0..2 {
        assert_eq!(versions(store.get_many(Kind::Tool, &ids).await.unwrap()), [Some(1), None]);
    }
    // Another handle (another process) creates t2 and changes t1.
    other.put(tool("t2"), Expected::Absent).await.unwrap();
    other.put(tool("t1"), Expected::Version(1)).await.unwrap();
    assert_eq!(versions(store.get_many(Kind::Tool, &ids).await.unwrap()), [Some(2), Some(1)]);
    assert_eq!(store.get(Kind::Tool, "t2").await.unwrap().map(|d| d.version()), Some(1));
    // This handle's own writer.
    store.put(tool("t2"), Expected::Version(1)).await.unwrap();
    assert_eq!(versions(store.get_many(Kind::Tool, &ids).await.unwrap()), [Some(2), Some(2)]);
    // A plain SQLite connection, outside the store altogether.
    let raw = Connection::open(&path).unwrap();
    raw.execute("UPDATE heads SET deleted = 1 WHERE id = 't1'", []).unwrap();
    assert!(store.get(Kind::Tool, "t1").await.unwrap().is_none());
    assert_eq!(versions(store.get_many(Kind::Tool, &ids).await.unwrap()), [None, Some(2)]);
}

/// An agent read with its tools is remembered with them (also after it was remembered
/// alone), an absent one as absent, and another handle's commit to one of the tools is
/// seen on the next read.
#[tokio::test]
async fn an_agent_and_its_tools_are_read_again_after_another_commit() {
    let (_dir, _path, store, other) = two_handles();
    store.put(tool("t1"), Expected::Absent).await.unwrap();
    store.put(agent("a", &["t1"]), Expected::Absent).await.unwrap();
    // remembered as absent, then the agent remembered without its tools
    for _ in 0..2 {
        assert!(store.get_with_references_shared(Kind::Agent, "b").await.unwrap().is_none());
    }
    assert!(store.get(Kind::Agent, "a").await.unwrap().is_some());
    let tool_version = |store: &SqliteStore| {
        let store = store.clone();
        async move {
            let found = store.get_with_references_shared(Kind::Agent, "a").await.unwrap();
            let tools = found.unwrap().tools;
            tools[0].as_ref().map(|t| t.version())
        }
    };
    for _ in 0..2 {
        assert_eq!(tool_version(&store).await, Some(1));
    }
    other.put(tool("t1"), Expected::Version(1)).await.unwrap();
    assert_eq!(tool_version(&store).await, Some(2));
}

/// The references a reader worked out for a remembered agent go with it: after another
/// handle's commit changes the agent's tools, the next read names the new ones.
#[tokio::test]
async fn an_agents_references_are_worked_out_again_after_another_commit() {
    let (_dir, _path, store, other) = two_handles();
    store.put(tool("t1"), Expected::Absent).await.unwrap();
    store.put(tool("t2"), Expected::Absent).await.unwrap();
    store.put(agent("a", &["t1"]), Expected::Absent).await.unwrap();
    let read = |store: &SqliteStore| {
        let store = store.clone();
        async move {
            let found = store.get_with_references_shared(Kind::Agent, "a").await.unwrap().unwrap();
            let tools = found.tools.iter().map(|t| t.as_ref().map(|t| t.id().to_owned()));
            (found.references, tools.collect::<Vec<_>>())
        }
    };
    for _ in 0..2 {
        assert_eq!(read(&store).await, (vec!["t1".to_owned()], vec![Some("t1".to_owned())]));
    }
    other.put(agent("a", &["t1", "t2"]), Expected::Version(1)).await.unwrap();
    let both = vec!["t1".to_owned(), "t2".to_owned()];
    for _ in 0..2 {
        let (references, tools) = read(&store).await;
        assert_eq!(references, both);
        assert_eq!(tools, both.iter().cloned().map(Some).collect::<Vec<_>>());
    }
}
