#![doc = include_str!("../README.md")]

mod connections;
mod counters;
mod cursor;
mod decoded;
mod document;
mod error;
mod events;
mod heads;
mod private_files;
mod proposals;
mod read;
mod schema;
mod write;

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use registry_core::{Definition, Kind};

use connections::{Connections, Reader};
use registry_store::{
    Change, Counter, EventDraft, EventPage, EventQuery, Expected, ListFilter, ListQuery, Page,
    Proposal, ProposalQuery, Referenced, Store, StoreError,
};

pub use schema::SCHEMA_VERSION;

/// Batches of at most this many ids are read on the calling task; larger ones on the
/// blocking pool.
const INLINE_BATCH: usize = 32;

// `get_with_references_shared` reads an agent's tools on the calling task: as many as
// an inline batch at most.
const _: () = assert!(registry_core::validate::MAX_TOOLS <= INLINE_BATCH);

/// [`Store`] on a SQLite file. Cheap to clone; clones share the connections. Point reads
/// and unfiltered pages run on the calling task; filtered lists, histories and writes
/// on tokio's blocking pool.
#[derive(Clone)]
pub struct SqliteStore {
    db: Arc<Connections>,
    decoded: Arc<decoded::Decoded>,
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
        let db = Arc::new(Connections::open(path.as_ref())?);
        Ok(Self { db, decoded: Arc::default() })
    }

    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Reader) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let db = Arc::clone(&self.db);
        tokio::task::spawn_blocking(move || db.read(f))
            .await
            .map_err(|e| StoreError::Backend(format!("sqlite task failed: {e}")))?
    }

    /// Runs a point read (a few primary-key lookups) on the calling task: from the page
    /// cache it takes microseconds, less than handing it to the blocking pool and back,
    /// which dominated a `GET` under load (two thread wake-ups per request). Readers
    /// never wait for the writer in WAL mode.
    fn read_inline<T>(
        &self,
        f: impl FnOnce(&mut Reader) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.db.read(f)
    }

    async fn write_tx<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut rusqlite::Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let db = Arc::clone(&self.db);
        tokio::task::spawn_blocking(move || db.write(f))
            .await
            .map_err(|e| StoreError::Backend(format!("sqlite task failed: {e}")))?
    }
}

/// A definition the caller owns: the shared one itself when no one else holds it, else
/// a copy.
fn owned(definition: Arc<Definition>) -> Definition {
    Arc::unwrap_or_clone(definition)
}

#[async_trait]
impl Store for SqliteStore {
    async fn get(&self, kind: Kind, id: &str) -> Result<Option<Definition>, StoreError> {
        Ok(self.get_shared(kind, id).await?.map(owned))
    }

    async fn get_many(
        &self,
        kind: Kind,
        ids: &[String],
    ) -> Result<Vec<Option<Definition>>, StoreError> {
        let found = self.get_many_shared(kind, ids).await?;
        Ok(found.into_iter().map(|d| d.map(owned)).collect())
    }

    async fn write(
        &self,
        definition: Definition,
        expected: Expected,
        change: Change,
    ) -> Result<Definition, StoreError> {
        self.write_tx(move |conn| write::put(conn, definition, expected, change)).await
    }

    async fn remove(
        &self,
        kind: Kind,
        id: &str,
        expected_version: u64,
        actor: &str,
    ) -> Result<(), StoreError> {
        let (id, actor) = (id.to_owned(), actor.to_owned());
        self.write_tx(move |conn| write::delete(conn, kind, &id, expected_version, &actor)).await
    }

    async fn save_proposal(
        &self,
        proposal: Proposal,
        expected_revision: Option<u64>,
        event: EventDraft,
    ) -> Result<Proposal, StoreError> {
        self.write_tx(move |conn| write::save_proposal(conn, proposal, expected_revision, event))
            .await
    }

    async fn proposal(&self, id: &str) -> Result<Option<Proposal>, StoreError> {
        self.read_inline(|r| proposals::get(&r.conn, id))
    }

    async fn proposals(&self, query: &ProposalQuery) -> Result<Page<Proposal>, StoreError> {
        let query = query.clone();
        self.read(move |r| proposals::list(&r.conn, &query)).await
    }

    async fn events(&self, query: &EventQuery) -> Result<EventPage, StoreError> {
        let query = query.clone();
        self.read(move |r| events::page(&r.conn, &query)).await
    }

    async fn list(&self, kind: Kind, query: &ListQuery) -> Result<Page<Definition>, StoreError> {
        let page = self.list_shared(kind, query).await?;
        Ok(Page {
            items: page.items.into_iter().map(owned).collect(),
            next_cursor: page.next_cursor,
        })
    }

    async fn versions(
        &self,
        kind: Kind,
        id: &str,
        query: &ListQuery,
    ) -> Result<Page<Definition>, StoreError> {
        let (id, query) = (id.to_owned(), query.clone());
        self.read(move |r| read::versions(&r.conn, kind, &id, &query)).await
    }

    async fn version(
        &self,
        kind: Kind,
        id: &str,
        version: u64,
    ) -> Result<Option<Definition>, StoreError> {
        self.read_inline(|r| read::version(&r.conn, kind, id, version))
    }

    async fn referrers(&self, tool_id: &str) -> Result<Vec<String>, StoreError> {
        let tool_id = tool_id.to_owned();
        self.read(move |r| read::referrers(&r.conn, &tool_id)).await
    }

    async fn get_counters(
        &self,
        keys: &[String],
        now: i64,
    ) -> Result<Vec<Option<Counter>>, StoreError> {
        let keys = keys.to_vec();
        self.read(move |r| counters::get(&r.conn, &keys, now)).await
    }

    async fn put_counters(&self, writes: &[Counter], now: i64) -> Result<(), StoreError> {
        let writes = writes.to_vec();
        self.write_tx(move |conn| counters::put(conn, &writes, now)).await
    }

    async fn get_shared(
        &self,
        kind: Kind,
        id: &str,
    ) -> Result<Option<Arc<Definition>>, StoreError> {
        self.read_inline(|r| read::get(r, &self.decoded, kind, id))
    }

    async fn get_many_shared(
        &self,
        kind: Kind,
        ids: &[String],
    ) -> Result<Vec<Option<Arc<Definition>>>, StoreError> {
        if ids.len() <= INLINE_BATCH {
            return self.read_inline(|r| read::get_many(r, &self.decoded, kind, ids));
        }
        let (ids, decoded) = (ids.to_vec(), Arc::clone(&self.decoded));
        self.read(move |r| read::get_many(r, &decoded, kind, &ids)).await
    }

    async fn get_with_references_shared(
        &self,
        kind: Kind,
        id: &str,
    ) -> Result<Option<Referenced>, StoreError> {
        self.read_inline(|r| read::get_with_references(r, &self.decoded, kind, id))
    }

    async fn list_shared(
        &self,
        kind: Kind,
        query: &ListQuery,
    ) -> Result<Page<Arc<Definition>>, StoreError> {
        // An unfiltered page walks the primary key for at most `limit + 1` live rows:
        // bounded work, done on the calling task. A filter may scan many rows that do
        // not match, so filtered pages go to the blocking pool.
        if query.filter == ListFilter::default() {
            return self.read_inline(|r| read::list(&r.conn, &self.decoded, kind, query));
        }
        let (query, decoded) = (query.clone(), Arc::clone(&self.decoded));
        self.read(move |r| read::list(&r.conn, &decoded, kind, &query)).await
    }
}
