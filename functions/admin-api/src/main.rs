//! Lambda entry point: `ROLE_MAP`, the DynamoDB store from `TABLE_NAME`, the router,
//! `lambda_http::run`. Any configuration error stops the function before it serves.

use std::sync::Arc;

use admin_api::{GatewayAuth, app};
use registry_api::principal_keys::DEFAULT_TTL_SECONDS;
use registry_api::service::{DecisionFormat, DecisionLog, Delivery};
use registry_api::{Registry, ReviewPolicy};
use registry_store_dynamodb::DynamoStore;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    // AWS SDK body logging capped so stored secrets never reach the logs.
    registry_api::telemetry::init_lambda_logging();
    let auth = GatewayAuth::from_env().inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid role configuration");
    })?;
    let store = DynamoStore::from_env().await.inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid store configuration");
    })?;
    let review = ReviewPolicy::from_env().inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid review configuration");
    })?;
    tracing::info!(table = store.table(), review_required = review.required, "admin-api starting");
    // Verify and test-invoke reach tool Lambdas through the usual credential chain (the
    // function's role); AGENT_REGISTRY_LAMBDA_ENDPOINT_URL points them elsewhere.
    let endpoint = |name| std::env::var(name).ok().filter(|u: &String| !u.is_empty());
    let endpoints = registry_aws::Endpoints {
        lambda: endpoint("AGENT_REGISTRY_LAMBDA_ENDPOINT_URL"),
        lambda_invoke: endpoint("AGENT_REGISTRY_LAMBDA_INVOKE_ENDPOINT_URL"),
        bedrock: endpoint("AGENT_REGISTRY_BEDROCK_ENDPOINT_URL"),
    };
    // Principal contexts are signed when REGISTRY_CONTEXT_KEYS holds a key ring; decisions
    // are CloudWatch embedded-metric-format lines.
    let keys = registry_api::principal_keys::from_env().inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid principal context keys");
    })?;
    let vault = registry_api::vault::SecretsManagerVault::from_env(
        endpoint("AGENT_REGISTRY_SECRETSMANAGER_ENDPOINT_URL"),
        registry_api::vault::secrets_prefix(),
    )
    .await;
    let mut registry = Registry::new(Arc::new(store))
        .with_aws(registry_aws::Aws::new(endpoints))
        .with_decision_log(DecisionLog::stdout(DecisionFormat::Emf, false, Delivery::Direct))
        .with_vault(Arc::new(vault))
        .with_review(review);
    if let Some(keys) = keys {
        registry = registry.with_principal_keys(keys, DEFAULT_TTL_SECONDS);
    }
    lambda_http::run(app(registry, Arc::new(auth))).await
}
