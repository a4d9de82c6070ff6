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
    let function = Function::new(Registry::new(Arc::new(store)));
    lambda_runtime::run(service_fn(|event| function.handle(event))).await
}
