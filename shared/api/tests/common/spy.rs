//! A store over SQLite that counts the reads and writes made through it, and can lose
//! every write to a concurrent writer.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use registry_core::{Definition, Kind};
use registry_store::{
    Change, EventDraft, EventPage, EventQuery, Expected, ListQuery, Page, Proposal, ProposalQuery,
    Store, StoreError,
};
use registry_store_sqlite::SqliteStore;

/// The spying store.
pub struct Spy {
    /// The real store (for setting up without counting).
    pub inner: SqliteStore,
    /// Calls of `get` and `get_many`.
    pub calls: AtomicUsize,
    /// Calls of `put` and `delete`.
    pub writes: AtomicUsize,
    /// Calls of `get_counters`.
    pub counter_reads: AtomicUsize,
    /// Calls of `put_counters`.
    pub counter_writes: AtomicUsize,
    /// Whether every `put` and `delete` finds another version than expected.
    losing: bool,
}

impl Spy {
    /// A spy over a fresh SQLite file in `dir`; `losing`: every write loses its race.
    pub fn open(dir: &Path, losing: bool) -> Arc<Self> {
        Arc::new(Self {
            inner: SqliteStore::open(dir.join("registry.db")).unwrap(),
            calls: AtomicUsize::new(0),
            writes: AtomicUsize::new(0),
            counter_reads: AtomicUsize::new(0),
            counter_writes: AtomicUsize::new(0),
            losing,
        })
    }

    /// Counts a write; the error when it loses (having expected `expected`).
    fn count_write(&self, expected: u64) -> Result<(), StoreError> {
        self.writes.fetch_add(1, Ordering::SeqCst);
        match self.losing {
            true => Err(StoreError::VersionMismatch { expected, current: Some(expected + 1) }),
            false => Ok(()),
        }
    }
}

#[async_trait]
impl Store for Spy {
    async fn get(&self, kind: Kind, id: &str) -> Result<Option<Definition>, StoreError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.get(kind, id).await
    }
    async fn get_many(
        &self,
        kind: Kind,
        ids: &[String],
    ) -> Result<Vec<Option<Definition>>, StoreError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.get_many(kind, ids).await
    }
    async fn write(
        &self,
        definition: Definition,
        expected: Expected,
        change: Change,
    ) -> Result<Definition, StoreError> {
        let version = match expected {
            Expected::Version(v) => v,
            Expected::Absent => 0,
        };
        self.count_write(version)?;
        self.inner.write(definition, expected, change).await
    }
    async fn remove(
        &self,
        kind: Kind,
        id: &str,
        expected_version: u64,
        actor: &str,
    ) -> Result<(), StoreError> {
        self.count_write(expected_version)?;
        self.inner.remove(kind, id, expected_version, actor).await
    }
    async fn save_proposal(
        &self,
        proposal: Proposal,
        expected_revision: Option<u64>,
        event: EventDraft,
    ) -> Result<Proposal, StoreError> {
        self.inner.save_proposal(proposal, expected_revision, event).await
    }
    async fn proposal(&self, id: &str) -> Result<Option<Proposal>, StoreError> {
        self.inner.proposal(id).await
    }
    async fn proposals(&self, query: &ProposalQuery) -> Result<Page<Proposal>, StoreError> {
        self.inner.proposals(query).await
    }
    async fn events(&self, query: &EventQuery) -> Result<EventPage, StoreError> {
        self.inner.events(query).await
    }
    async fn list(&self, kind: Kind, query: &ListQuery) -> Result<Page<Definition>, StoreError> {
        self.inner.list(kind, query).await
    }
    async fn versions(
        &self,
        kind: Kind,
        id: &str,
        query: &ListQuery,
    ) -> Result<Page<Definition>, StoreError> {
        self.inner.versions(kind, id, query).await
    }
    async fn version(
        &self,
        kind: Kind,
        id: &str,
        version: u64,
    ) -> Result<Option<Definition>, StoreError> {
        self.inner.version(kind, id, version).await
    }
    async fn referrers(&self, tool_id: &str) -> Result<Vec<String>, StoreError> {
        self.inner.referrers(tool_id).await
    }
    async fn get_counters(
        &self,
        keys: &[String],
        now: i64,
    ) -> Result<Vec<Option<registry_store::Counter>>, StoreError> {
        self.counter_reads.fetch_add(1, Ordering::SeqCst);
        self.inner.get_counters(keys, now).await
    }
    async fn put_counters(
        &self,
        writes: &[registry_store::Counter],
        now: i64,
    ) -> Result<(), StoreError> {
        self.counter_writes.fetch_add(1, Ordering::SeqCst);
        self.inner.put_counters(writes, now).await
    }
}
