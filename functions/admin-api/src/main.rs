//! Lambda entry point: `ROLE_MAP`, the DynamoDB store from `TABLE_NAME`, the router,
//! `lambda_http::run`. Any configuration error stops the function before it serves.

use std::sync::Arc;

use admin_api::{GatewayAuth, app};
use registry_api::Registry;
use registry_store_dynamodb::DynamoStore;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    // JSON lines for CloudWatch; level from RUST_LOG, else AWS_LAMBDA_LOG_LEVEL, else info;
    // AWS SDK body logging capped so stored secrets never reach the logs.
    let level = std::env::var("AWS_LAMBDA_LOG_LEVEL").unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt()
        .json()
        .with_env_filter(registry_api::telemetry::log_filter(&level.to_lowercase()))
        .without_time()
        .init();
    let auth = GatewayAuth::from_env().inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid role configuration");
    })?;
    let store = DynamoStore::from_env().await.inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid store configuration");
    })?;
    tracing::info!(table = store.table(), "admin-api starting");
    // Verify and test-invoke reach tool Lambdas through the usual credential chain (the
    // function's role); AGENT_REGISTRY_LAMBDA_ENDPOINT_URL points them elsewhere.
    let endpoint = |name| std::env::var(name).ok().filter(|u: &String| !u.is_empty());
    let endpoints = registry_aws::Endpoints {
        lambda: endpoint("AGENT_REGISTRY_LAMBDA_ENDPOINT_URL"),
        lambda_invoke: endpoint("AGENT_REGISTRY_LAMBDA_INVOKE_ENDPOINT_URL"),
        bedrock: endpoint("AGENT_REGISTRY_BEDROCK_ENDPOINT_URL"),
    };
    let registry = Registry::new(Arc::new(store)).with_aws(registry_aws::Aws::new(endpoints));
    lambda_http::run(app(registry, Arc::new(auth))).await
}
