//! The backend contract suite against SQLite files in fresh temp dirs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use registry_store::contract::Fixture;
use registry_store_sqlite::SqliteStore;

async fn sqlite_fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(dir.path().join("registry.db")).expect("open store");
    Fixture::new(Arc::new(store), dir)
}

registry_store::contract_tests!(sqlite_fixture());
