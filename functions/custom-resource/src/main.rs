//! Lambda entry point: the configuration ([`custom_resource::Config`], from the
//! environment), the DynamoDB store, then one guarded [`Function::handle`] per
//! CloudFormation event. A configuration error stops the function.

use std::sync::Arc;

use custom_resource::{Config, Function};
use lambda_runtime::service_fn;
use registry_config::Vars;
use registry_service::Registry;
use registry_store_dynamodb::DynamoStore;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    registry_service::telemetry::init_lambda_logging();
    let config = Config::read(Vars::from_env()).inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid configuration");
    })?;
    let store = DynamoStore::open(&config.table).await;
    tracing::info!(table = store.table(), "custom-resource starting");
    let vault = registry_service::vault::SecretsManagerVault::from_env(
        config.secrets.endpoint_url,
        config.secrets.prefix,
    )
    .await;
    let function = Function::new(Registry::new(Arc::new(store)).with_vault(Arc::new(vault)));
    lambda_runtime::run(service_fn(|event| function.handle(event))).await
}
