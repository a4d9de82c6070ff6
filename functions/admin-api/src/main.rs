//! Lambda entry point: `ROLE_MAP`, the DynamoDB store from `TABLE_NAME`, the router,
//! `lambda_http::run`. Any configuration error stops the function before it serves.

use std::sync::Arc;

use admin_api::{GatewayAuth, app};
use registry_api::Registry;
use registry_store_dynamodb::DynamoStore;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    lambda_http::tracing::init_default_subscriber();
    let auth = GatewayAuth::from_env().inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid role configuration");
    })?;
    let store = DynamoStore::from_env().await.inspect_err(|e| {
        tracing::error!(error = %e, "refusing to start: invalid store configuration");
    })?;
    tracing::info!(table = store.table(), "admin-api starting");
    let registry = Registry::new(Arc::new(store));
    lambda_http::run(app(registry, Arc::new(auth))).await
}
