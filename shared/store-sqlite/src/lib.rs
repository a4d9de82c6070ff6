//! The embedded backend: one SQLite file in WAL mode, created on first open.

mod connections;
mod cursor;
mod document;
mod error;
mod private_files;
mod read;
mod schema;
mod write;

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use registry_core::{Definition, Kind};

use connections::Connections;
use registry_store::{Expected, ListQuery, Page, Store, StoreError};

pub use schema::SCHEMA_VERSION;

/// [`Store`] on a SQLite file. Cheap to clone; clones share the connections. Blocking
/// SQLite work runs on tokio's blocking pool.
#[derive(Clone)]
pub struct SqliteStore {
    db: Arc<Connections>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens the database at `path`, creating the file (and its parent directory) and
    /// the schema on first run and migrating an older schema. Blocks briefly; call it at
    /// startup.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Ok(Self { db: Arc::new(Connections::open(path.as_ref())?) })
    }

    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&rusqlite::Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let db = Arc::clone(&self.db);
        tokio::task::spawn_blocking(move || db.read(f))
            .await
            .map_err(|e| StoreError::Backend(format!("sqlite task failed: {e}")))?
    }

    async fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut rusqlite::Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let db = Arc::clone(&self.db);
        tokio::task::spawn_blocking(move || db.write(f))
            .await
            .map_err(|e| StoreError::Backend(format!("sqlite task failed: {e}")))?
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn get(&self, kind: Kind, id: &str) -> Result<Option<Definition>, StoreError> {
        let id = id.to_owned();
        self.read(move |conn| read::get(conn, kind, &id)).await
    }

    async fn get_many(
        &self,
        kind: Kind,
        ids: &[String],
    ) -> Result<Vec<Option<Definition>>, StoreError> {
        let ids = ids.to_vec();
        self.read(move |conn| read::get_many(conn, kind, &ids)).await
    }

    async fn put(
        &self,
        definition: Definition,
        expected: Expected,
    ) -> Result<Definition, StoreError> {
        self.write(move |conn| write::put(conn, definition, expected)).await
    }

    async fn delete(&self, kind: Kind, id: &str, expected_version: u64) -> Result<(), StoreError> {
        let id = id.to_owned();
        self.write(move |conn| write::delete(conn, kind, &id, expected_version)).await
    }

    async fn list(&self, kind: Kind, query: &ListQuery) -> Result<Page<Definition>, StoreError> {
        let query = query.clone();
        self.read(move |conn| read::list(conn, kind, &query)).await
    }

    async fn versions(
        &self,
        kind: Kind,
        id: &str,
        query: &ListQuery,
    ) -> Result<Page<Definition>, StoreError> {
        let (id, query) = (id.to_owned(), query.clone());
        self.read(move |conn| read::versions(conn, kind, &id, &query)).await
    }

    async fn version(
        &self,
        kind: Kind,
        id: &str,
        version: u64,
    ) -> Result<Option<Definition>, StoreError> {
        let id = id.to_owned();
        self.read(move |conn| read::version(conn, kind, &id, version)).await
    }

    async fn referrers(&self, tool_id: &str) -> Result<Vec<String>, StoreError> {
        let tool_id = tool_id.to_owned();
        self.read(move |conn| read::referrers(conn, &tool_id)).await
    }
}
