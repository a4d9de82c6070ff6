//! The registry's DynamoDB table as a rule source: the one source that needs the
//! DynamoDB SDK, so it lives with the Lambdas that read the table (the guard, the
//! gateway interceptor), not in the enforcement core.

use std::sync::Arc;
use std::time::Duration;

use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use registry_config::ConfigError;
use registry_core::{AgentDefinition, LifecycleStatus, ToolDefinition};
use registry_policy::{Fetched, RuleSource, StoreSource};
use registry_store::{Store, StoreError};
use registry_store_dynamodb::DynamoStore;

use crate::config::{ENDPOINT_ENV, TABLE_ENV};

/// Attempts per read of the table: a call waits for at most this many.
const READ_ATTEMPTS: u32 = 2;
/// Longest one attempt may take.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(1);

/// The registry's DynamoDB table, read with the registry's own store code (a
/// [`StoreSource`] on a [`DynamoStore`]).
#[derive(Debug, Clone)]
pub struct DynamoSource {
    store: StoreSource,
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
        let store = DynamoStore::new(client, table, b"registry-guard: no cursors");
        Self { store: StoreSource::new(Arc::new(store)) }
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
        self.store.tool(tool_id).await
    }

    async fn agent(&self, agent_id: &str) -> Result<Option<AgentDefinition>, StoreError> {
        self.store.agent(agent_id).await
    }

    async fn definitions(&self, agent_id: &str) -> Result<Option<Fetched>, StoreError> {
        self.store.definitions(agent_id).await
    }

    fn counters(&self) -> Option<&dyn Store> {
        self.store.counters()
    }

    async fn tools_tagged(
        &self,
        key: &str,
        value: &str,
    ) -> Result<Vec<(String, LifecycleStatus)>, StoreError> {
        self.store.tools_tagged(key, value).await
    }
}
