//! [`Store`] for [`DynamoStore`]: each method delegates to the file that implements it.

use async_trait::async_trait;
use registry_core::{Definition, Kind};
use registry_store::{
    Change, Counter, EventDraft, EventPage, EventQuery, Expected, ListQuery, Page, Proposal,
    ProposalQuery, Store, StoreError,
};

use crate::DynamoStore;

#[async_trait]
impl Store for DynamoStore {
    async fn get(&self, kind: Kind, id: &str) -> Result<Option<Definition>, StoreError> {
        self.get_definition(kind, id).await
    }

    async fn get_many(
        &self,
        kind: Kind,
        ids: &[String],
    ) -> Result<Vec<Option<Definition>>, StoreError> {
        self.get_many_definitions(kind, ids).await
    }

    async fn write(
        &self,
        definition: Definition,
        expected: Expected,
        change: Change,
    ) -> Result<Definition, StoreError> {
        self.put_definition(definition, expected, change).await
    }

    async fn remove(
        &self,
        kind: Kind,
        id: &str,
        expected_version: u64,
        actor: &str,
    ) -> Result<(), StoreError> {
        self.delete_definition(kind, id, expected_version, actor).await
    }

    async fn save_proposal(
        &self,
        proposal: Proposal,
        expected_revision: Option<u64>,
        event: EventDraft,
    ) -> Result<Proposal, StoreError> {
        self.save_proposal_item(proposal, expected_revision, event).await
    }

    async fn proposal(&self, id: &str) -> Result<Option<Proposal>, StoreError> {
        self.get_proposal(id).await
    }

    async fn proposals(&self, query: &ProposalQuery) -> Result<Page<Proposal>, StoreError> {
        self.list_proposals(query).await
    }

    async fn events(&self, query: &EventQuery) -> Result<EventPage, StoreError> {
        self.event_page(query).await
    }

    async fn list(&self, kind: Kind, query: &ListQuery) -> Result<Page<Definition>, StoreError> {
        self.list_definitions(kind, query).await
    }

    async fn versions(
        &self,
        kind: Kind,
        id: &str,
        query: &ListQuery,
    ) -> Result<Page<Definition>, StoreError> {
        self.list_versions(kind, id, query).await
    }

    async fn version(
        &self,
        kind: Kind,
        id: &str,
        version: u64,
    ) -> Result<Option<Definition>, StoreError> {
        self.get_version(kind, id, version).await
    }

    async fn referrers(&self, tool_id: &str) -> Result<Vec<String>, StoreError> {
        self.referrers_of(tool_id).await
    }

    async fn get_counters(
        &self,
        keys: &[String],
        now: i64,
    ) -> Result<Vec<Option<Counter>>, StoreError> {
        self.read_counters(keys, now).await
    }

    async fn put_counters(&self, writes: &[Counter], now: i64) -> Result<(), StoreError> {
        self.write_counters(writes, now).await
    }
}
