//! Lambda entry point: the configuration ([`admin_api::Config`], from the environment),
//! the DynamoDB store, the router, `lambda_http::run`. Any configuration error stops the
//! function before it serves.

use std::sync::Arc;

use admin_api::{Config, GatewayAuth, app};
use registry_api::Registry;
use registry_api::principal_keys::{PrincipalKeys, SecretsManagerKeyStore};
use registry_api::service::{DecisionFormat, DecisionLog, Delivery};
use registry_config::Vars;
use registry_store_dynamodb::DynamoStore;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    // AWS SDK body logging capped so stored secrets never reach the logs.
    registry_api::telemetry::init_lambda_logging();
    let config = Config::read(Vars::from_env()).inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid configuration");
    })?;
    let Config { roles, table, signing_keys_secret, tokens, review, secrets, endpoints, discovery } =
        config;
    let store = DynamoStore::open(&table).await;
    tracing::info!(table = store.table(), review_required = review.required, "admin-api starting");
    let vault = registry_api::vault::SecretsManagerVault::from_env(
        secrets.endpoint_url.clone(),
        secrets.prefix,
    )
    .await;
    // Decisions are CloudWatch embedded-metric-format lines.
    let mut registry = Registry::new(Arc::new(store))
        .with_aws(registry_aws::Aws::new(endpoints))
        .with_decision_log(DecisionLog::stdout(DecisionFormat::Emf, false, Delivery::Direct))
        .with_vault(Arc::new(vault))
        .with_review(review)
        .with_discovery(discovery);
    if let Some(secret) = signing_keys_secret {
        let store = SecretsManagerKeyStore::from_env(secrets.endpoint_url, secret).await;
        let keys = PrincipalKeys::open(Arc::new(store), tokens).await.inspect_err(|e| {
            tracing::error!(error = %e, "refusing to start: the signing keys are unusable");
        })?;
        registry = registry.with_principal_keys(Arc::new(keys));
    }
    lambda_http::run(app(registry, Arc::new(GatewayAuth::new(roles)))).await
}
