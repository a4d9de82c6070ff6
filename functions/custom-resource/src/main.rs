//! Lambda entry point: the DynamoDB store from `TABLE_NAME` (and `DYNAMODB_ENDPOINT`),
//! then one guarded [`Function::invoke`] per CloudFormation event.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use custom_resource::Function;
use lambda_runtime::{LambdaEvent, service_fn};
use registry_api::Registry;
use registry_store_dynamodb::DynamoStore;
use serde_json::value::RawValue;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    let level = std::env::var("AWS_LAMBDA_LOG_LEVEL").unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt()
        .json()
        .with_env_filter(registry_api::telemetry::log_filter(&level.to_lowercase()))
        .without_time()
        .init();
    let store = DynamoStore::from_env().await.inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid store configuration");
    })?;
    tracing::info!(table = store.table(), "custom-resource starting");
    let function = Function::new(Registry::new(Arc::new(store)));
    let function = &function;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Box<RawValue>>| async move {
        let deadline = UNIX_EPOCH + Duration::from_millis(event.context.deadline);
        let deadline = deadline.max(SystemTime::now());
        match function.invoke(event.payload.get(), deadline).await {
            Ok(response) => Ok(serde_json::json!({
                "Status": response.status,
                "PhysicalResourceId": response.physical_resource_id,
            })),
            Err(why) => {
                tracing::error!(error = %why, "no response delivered to CloudFormation");
                Err(lambda_runtime::Error::from(why))
            }
        }
    }))
    .await
}
