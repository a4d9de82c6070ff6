//! Where a point reads a tool's definition: any registry store ([`StoreSource`]: SQLite
//! in `serve`, the table in a Lambda through `registry-guard`'s `DynamoSource`), or any
//! other [`RuleSource`] (an in-process one in tests).

use std::future::Future;
use std::sync::Arc;

use registry_core::{AgentDefinition, Definition, Kind, LifecycleStatus, ToolDefinition};
use registry_store::{ListQuery, Store, StoreError, TagFilter};

use crate::grant::{Fetched, fetch_definitions};

/// Reads the live definition of a tool (and of the agent calling it), and keeps the
/// session counters.
pub trait RuleSource: Send + Sync {
    /// The live definition of `tool_id`: `Ok(None)` when there is none, `Err` when it
    /// could not be read.
    fn tool(
        &self,
        tool_id: &str,
    ) -> impl Future<Output = Result<Option<ToolDefinition>, StoreError>> + Send;

    /// The live definition of `agent_id` (for its session budgets); none by default.
    fn agent(
        &self,
        agent_id: &str,
    ) -> impl Future<Output = Result<Option<AgentDefinition>, StoreError>> + Send {
        let _ = agent_id;
        async { Ok(None) }
    }

    /// Everything resolving the live agent `agent_id` reads, for its grant
    /// ([`fetch_definitions`] on a store); `Ok(None)` when there is no
    /// live agent. By default: the agent ([`RuleSource::agent`]) and the tools it names
    /// exactly ([`RuleSource::tool`]); a source that lists no releases resolves no range
    /// and reads no collaborator, so what they would grant is not granted (fail closed).
    fn definitions(
        &self,
        agent_id: &str,
    ) -> impl Future<Output = Result<Option<Fetched>, StoreError>> + Send {
        async move {
            let Some(agent) = self.agent(agent_id).await? else { return Ok(None) };
            let mut defs = Fetched::default();
            for id in registry_core::resolve::tools_to_fetch(&agent) {
                if let Some(tool) = self.tool(&id).await? {
                    defs.insert(Arc::new(Definition::Tool(tool)));
                }
            }
            defs.insert(Arc::new(Definition::Agent(agent)));
            Ok(Some(defs))
        }
    }

    /// The store that keeps session and rate counters; none by default (a tool whose
    /// calls need counting is then refused).
    fn counters(&self) -> Option<&dyn Store> {
        None
    }

    /// The tools whose tag `key` is `value`, with their lifecycle status (for a
    /// gateway's target); none by default.
    fn tools_tagged(
        &self,
        key: &str,
        value: &str,
    ) -> impl Future<Output = Result<Vec<(String, LifecycleStatus)>, StoreError>> + Send {
        let _ = (key, value);
        async { Ok(Vec::new()) }
    }
}

/// Any registry store (SQLite in `serve`, the table in a Lambda) as a rule source.
#[derive(Clone)]
pub struct StoreSource {
    store: Arc<dyn Store>,
}

impl std::fmt::Debug for StoreSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreSource").finish_non_exhaustive()
    }
}

impl StoreSource {
    /// Reads and counts in `store`.
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store }
    }
}

impl RuleSource for StoreSource {
    async fn tool(&self, tool_id: &str) -> Result<Option<ToolDefinition>, StoreError> {
        live_tool(self.store.as_ref(), tool_id).await
    }

    async fn agent(&self, agent_id: &str) -> Result<Option<AgentDefinition>, StoreError> {
        live_agent(self.store.as_ref(), agent_id).await
    }

    async fn definitions(&self, agent_id: &str) -> Result<Option<Fetched>, StoreError> {
        fetch_definitions(self.store.as_ref(), agent_id).await
    }

    fn counters(&self) -> Option<&dyn Store> {
        Some(self.store.as_ref())
    }

    async fn tools_tagged(
        &self,
        key: &str,
        value: &str,
    ) -> Result<Vec<(String, LifecycleStatus)>, StoreError> {
        tagged(self.store.as_ref(), key, value).await
    }
}

/// The live tool `tool_id` of `store`.
async fn live_tool(store: &dyn Store, tool_id: &str) -> Result<Option<ToolDefinition>, StoreError> {
    match store.get(Kind::Tool, tool_id).await? {
        Some(Definition::Tool(tool)) => Ok(Some(tool)),
        _ => Ok(None),
    }
}

/// The live agent `agent_id` of `store`.
async fn live_agent(
    store: &dyn Store,
    agent_id: &str,
) -> Result<Option<AgentDefinition>, StoreError> {
    match store.get(Kind::Agent, agent_id).await? {
        Some(Definition::Agent(agent)) => Ok(Some(agent)),
        _ => Ok(None),
    }
}

/// Most tools one tag lookup reads (pages of 100).
const MAX_TAGGED: usize = 1_000;

/// The tools of `store` tagged `key=value`, with their lifecycle status.
async fn tagged(
    store: &dyn Store,
    key: &str,
    value: &str,
) -> Result<Vec<(String, LifecycleStatus)>, StoreError> {
    let mut query = ListQuery { limit: 100, ..ListQuery::default() };
    query.filter.tag = Some(TagFilter { key: key.to_owned(), value: Some(value.to_owned()) });
    let mut found = Vec::new();
    loop {
        let page = store.list(Kind::Tool, &query).await?;
        found.extend(page.items.into_iter().filter_map(|d| match d {
            Definition::Tool(tool) => {
                let status = tool.lifecycle.as_ref().map_or(LifecycleStatus::Active, |l| l.status);
                Some((tool.tool_id, status))
            }
            Definition::Agent(_) => None,
        }));
        match page.next_cursor {
            Some(cursor) if found.len() < MAX_TAGGED => query.cursor = Some(cursor),
            _ => return Ok(found),
        }
    }
}
