//! The storage contract.

use std::sync::Arc;

use async_trait::async_trait;
use registry_core::{Definition, Kind};

use crate::{
    Action, Change, Counter, EventDraft, EventPage, EventQuery, Expected, ListQuery, Page,
    Proposal, ProposalQuery, StoreError,
};

/// The actor of writes made without one ([`Store::put`], [`Store::delete`]).
pub const SYSTEM_ACTOR: &str = "system";

/// A live definition with the tools it references, as
/// [`Store::get_with_references_shared`] reads them.
#[derive(Debug, Clone)]
pub struct Referenced {
    /// The definition.
    pub head: Arc<Definition>,
    /// Its [`Definition::references`].
    pub references: Vec<String>,
    /// The live head of each of `references`, in that order (`None` when not live).
    pub tools: Vec<Option<Arc<Definition>>>,
}

/// Durable storage of definitions. Every write is atomic: the head record, an immutable
/// version snapshot and the agent->tool references change together or not at all,
/// conditional on the expected version. Backends never interpret definitions beyond
/// the index fields exposed by [`Definition`].
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// The live head of a definition.
    async fn get(&self, kind: Kind, id: &str) -> Result<Option<Definition>, StoreError>;

    /// Live heads of many definitions, in the order asked (`None` for missing ones).
    async fn get_many(
        &self,
        kind: Kind,
        ids: &[String],
    ) -> Result<Vec<Option<Definition>>, StoreError>;

    /// Writes a new version of `definition` if the stored state matches `expected`.
    /// The store assigns the version (previous + 1, continuing after a delete) and
    /// returns the definition as stored. For agents, every id in
    /// [`Definition::references`] must be a live tool that is not retired. In the same
    /// transaction it appends the write's [`Event`](crate::Event) (actor and action from
    /// `change`, versions and [`changed_pointers`](crate::changed_pointers) from the
    /// stored head) and, if `change` carries one, stores the proposal, conditional on its
    /// revision ([`StoreError::VersionMismatch`] on the proposal otherwise, with
    /// `current: None` never meaning the definition).
    async fn write(
        &self,
        definition: Definition,
        expected: Expected,
        change: Change,
    ) -> Result<Definition, StoreError>;

    /// Deletes the live definition if it is at `expected_version`, appending a `delete`
    /// event by `actor` in the same transaction. A tool referenced by agents is refused
    /// with [`StoreError::InUse`] unless it is retired. Version history stays readable
    /// and version numbers are never reused. No live definition is
    /// [`StoreError::NotFound`]; another version is [`StoreError::VersionMismatch`].
    async fn remove(
        &self,
        kind: Kind,
        id: &str,
        expected_version: u64,
        actor: &str,
    ) -> Result<(), StoreError>;

    /// [`Store::write`] as a `create` (expecting absence) or `replace`, by the
    /// definition's `lastModifiedBy` (`system` when unset).
    async fn put(
        &self,
        definition: Definition,
        expected: Expected,
    ) -> Result<Definition, StoreError> {
        let actor = definition.server().last_modified_by.clone();
        let action = match expected {
            Expected::Absent => Action::Create,
            Expected::Version(_) => Action::Replace,
        };
        let change = Change::new(actor.unwrap_or_else(|| SYSTEM_ACTOR.to_owned()), action);
        self.write(definition, expected, change).await
    }

    /// [`Store::remove`] by `system`.
    async fn delete(&self, kind: Kind, id: &str, expected_version: u64) -> Result<(), StoreError> {
        self.remove(kind, id, expected_version, SYSTEM_ACTOR).await
    }

    /// Stores `proposal` (the store sets its revision: 1 when `expected_revision` is
    /// `None`, which requires that no proposal has its id; else `expected_revision + 1`,
    /// which requires the stored one to be at `expected_revision`) and appends `event`
    /// in the same transaction. Returns the proposal as stored. A mismatch is
    /// [`StoreError::VersionMismatch`] (or [`StoreError::AlreadyExists`]).
    async fn save_proposal(
        &self,
        proposal: Proposal,
        expected_revision: Option<u64>,
        event: EventDraft,
    ) -> Result<Proposal, StoreError>;

    /// One proposal by id.
    async fn proposal(&self, id: &str) -> Result<Option<Proposal>, StoreError>;

    /// One page of proposals ordered by id (creation order), filtered; `next_cursor` is
    /// the last id of the page when more may follow.
    async fn proposals(&self, query: &ProposalQuery) -> Result<Page<Proposal>, StoreError>;

    /// One page of events after `query.after`, oldest first, filtered.
    async fn events(&self, query: &EventQuery) -> Result<EventPage, StoreError>;

    /// One page of live definitions ordered by id, filtered.
    async fn list(&self, kind: Kind, query: &ListQuery) -> Result<Page<Definition>, StoreError>;

    /// One page of a definition's version snapshots, oldest first (`query.filter` ignored;
    /// an id never stored gives an empty page).
    async fn versions(
        &self,
        kind: Kind,
        id: &str,
        query: &ListQuery,
    ) -> Result<Page<Definition>, StoreError>;

    /// One immutable version snapshot.
    async fn version(
        &self,
        kind: Kind,
        id: &str,
        version: u64,
    ) -> Result<Option<Definition>, StoreError>;

    /// Ids of the live agents that reference a tool, sorted.
    async fn referrers(&self, tool_id: &str) -> Result<Vec<String>, StoreError>;

    /// The counter records `keys`, in the order asked (`None` for absent or expired at
    /// `now`, Unix seconds).
    async fn get_counters(
        &self,
        keys: &[String],
        now: i64,
    ) -> Result<Vec<Option<Counter>>, StoreError>;

    /// Writes every counter of `writes` or none: each only if the stored version is the
    /// one before it ([`Counter::expected`]; 0 when absent or expired at `now`).
    /// Otherwise [`StoreError::VersionMismatch`] and nothing is written.
    async fn put_counters(&self, writes: &[Counter], now: i64) -> Result<(), StoreError>;

    /// [`Store::get`], shared: a backend that keeps decoded definitions hands out the
    /// same allocation to every reader instead of a copy. The default wraps
    /// [`Store::get`].
    async fn get_shared(
        &self,
        kind: Kind,
        id: &str,
    ) -> Result<Option<Arc<Definition>>, StoreError> {
        Ok(self.get(kind, id).await?.map(Arc::new))
    }

    /// [`Store::get_many`], shared (see [`Store::get_shared`]). The default wraps
    /// [`Store::get_many`].
    async fn get_many_shared(
        &self,
        kind: Kind,
        ids: &[String],
    ) -> Result<Vec<Option<Arc<Definition>>>, StoreError> {
        let found = self.get_many(kind, ids).await?;
        Ok(found.into_iter().map(|d| d.map(Arc::new)).collect())
    }

    /// [`Store::get_shared`], and with it the live heads of the tools the definition
    /// references ([`Definition::references`], in that order): one read of the snapshot
    /// where the backend can. `None` when the definition is not live. The default is
    /// [`Store::get_shared`], then [`Store::get_many_shared`] of the references, if any.
    async fn get_with_references_shared(
        &self,
        kind: Kind,
        id: &str,
    ) -> Result<Option<Referenced>, StoreError> {
        let Some(head) = self.get_shared(kind, id).await? else { return Ok(None) };
        let references = head.references();
        let tools = if references.is_empty() {
            Vec::new()
        } else {
            self.get_many_shared(Kind::Tool, &references).await?
        };
        Ok(Some(Referenced { head, references, tools }))
    }

    /// [`Store::list`], shared (see [`Store::get_shared`]). The default wraps
    /// [`Store::list`].
    async fn list_shared(
        &self,
        kind: Kind,
        query: &ListQuery,
    ) -> Result<Page<Arc<Definition>>, StoreError> {
        let page = self.list(kind, query).await?;
        Ok(Page {
            items: page.items.into_iter().map(Arc::new).collect(),
            next_cursor: page.next_cursor,
        })
    }
}
