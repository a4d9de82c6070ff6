//! Lambda entry point: the DynamoDB store from `TABLE_NAME` (and `DYNAMODB_ENDPOINT`),
//! then one guarded [`Function::handle`] per CloudFormation event.

use std::sync::Arc;

use custom_resource::Function;
use lambda_runtime::service_fn;
use registry_api::Registry;
use registry_store_dynamodb::DynamoStore;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    registry_api::telemetry::init_lambda_logging();
    let store = DynamoStore::from_env().await.inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid store configuration");
    })?;
    tracing::info!(table = store.table(), "custom-resource starting");
    let endpoint = std::env::var("AGENT_REGISTRY_SECRETSMANAGER_ENDPOINT_URL").ok();
    let vault = registry_api::vault::SecretsManagerVault::from_env(
        endpoint.filter(|u| !u.is_empty()),
        registry_api::vault::secrets_prefix(),
    )
    .await;
    let function = Function::new(Registry::new(Arc::new(store)).with_vault(Arc::new(vault)));
    lambda_runtime::run(service_fn(|event| function.handle(event))).await
}
