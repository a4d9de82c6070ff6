//! Where the guard reads a tool's definition: the registry's table in a Lambda, any
//! other [`RuleSource`] elsewhere (an in-process one in tests).

use std::future::Future;
use std::time::Duration;

use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use std::sync::Arc;

use registry_core::{AgentDefinition, Definition, Kind, LifecycleStatus, ToolDefinition};
use registry_store::{ListQuery, Store, StoreError, TagFilter};
use registry_store_dynamodb::DynamoStore;

use registry_config::ConfigError;
use registry_policy::{Fetched, fetch_definitions};

use crate::config::{ENDPOINT_ENV, TABLE_ENV};

/// Attempts per read of the table: a call waits for at most this many.
const READ_ATTEMPTS: u32 = 2;
/// Longest one attempt may take.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(1);

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
    /// (`registry_policy::fetch_definitions` on a store); `Ok(None)` when there is no
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

/// The registry's DynamoDB table, read with the registry's own store code.
#[derive(Debug, Clone)]
pub struct DynamoSource {
    store: DynamoStore,
}

impl DynamoSource {
    /// The table `table`, through `endpoint_url` when given; reads give up after
    /// two attempts of at most a second each, so an unreachable table costs a call
    /// little before it is denied.
    pub async fn connect(table: &str, endpoint_url: Option<String>) -> Self {
        let base = registry_sdk_config::sdk_config(endpoint_url).await;
        let config = aws_sdk_dynamodb::config::Builder::from(&base)
            .retry_config(RetryConfig::standard().with_max_attempts(READ_ATTEMPTS))
            .timeout_config(
                TimeoutConfig::builder().operation_attempt_timeout(ATTEMPT_TIMEOUT).build(),
            )
            .build();
        let client = aws_sdk_dynamodb::Client::from_conf(config);
        // Lists (a tag lookup, a range's releases) are read whole here: no cursor leaves the process.
        Self { store: DynamoStore::new(client, table, b"registry-guard: no cursors") }
    }

    /// [`DynamoSource::connect`] to the table named by [`TABLE_ENV`], through
    /// [`ENDPOINT_ENV`] when set.
    pub async fn from_env() -> Result<Self, ConfigError> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let table = var(TABLE_ENV).ok_or_else(|| {
            ConfigError::missing(
                TABLE_ENV,
                "the registry's table (or REGISTRY_URL and REGISTRY_TOKEN: the registry decides)",
            )
        })?;
        Ok(Self::connect(table.trim(), var(ENDPOINT_ENV)).await)
    }
}

impl RuleSource for DynamoSource {
    async fn tool(&self, tool_id: &str) -> Result<Option<ToolDefinition>, StoreError> {
        live_tool(&self.store, tool_id).await
    }

    async fn agent(&self, agent_id: &str) -> Result<Option<AgentDefinition>, StoreError> {
        live_agent(&self.store, agent_id).await
    }

    async fn definitions(&self, agent_id: &str) -> Result<Option<Fetched>, StoreError> {
        fetch_definitions(&self.store, agent_id).await
    }

    fn counters(&self) -> Option<&dyn Store> {
        Some(&self.store)
    }

    async fn tools_tagged(
        &self,
        key: &str,
        value: &str,
    ) -> Result<Vec<(String, LifecycleStatus)>, StoreError> {
        tagged(&self.store, key, value).await
    }
}
