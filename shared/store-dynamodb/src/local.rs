//! A store on a fresh table of a local DynamoDB-API server, for tests (feature
//! `local-server`): the server is [`endpoint`]'s (`registry_sdk_config::local`).

use std::sync::atomic::{AtomicU32, Ordering};

use aws_sdk_dynamodb::config::{Credentials, Region};
pub use registry_sdk_config::local::endpoint;
use registry_sdk_config::sdk_config;

use crate::DynamoStore;
use registry_store::StoreError;

/// A store on a new, empty table named `<prefix>-<pid>-<n>-<nanos>` (fake credentials,
/// region us-east-1).
pub async fn fresh_store(prefix: &str) -> Result<DynamoStore, String> {
    let store = DynamoStore::new(client().await?, table_name(prefix), CURSOR_KEY);
    store.create_table().await.map_err(|e: StoreError| format!("cannot create table: {e}"))?;
    Ok(store)
}

/// Another store on `store`'s table, as a second process would have one: its own SDK
/// client, call counter and decoded-definition cache.
pub async fn another_instance(store: &DynamoStore) -> Result<DynamoStore, String> {
    Ok(DynamoStore::new(client().await?, store.table(), CURSOR_KEY))
}

/// A store on `store`'s table reached through `endpoint` instead (one nothing listens
/// on: a table that does not answer).
pub async fn through(store: &DynamoStore, endpoint: &str) -> DynamoStore {
    DynamoStore::new(client_at(endpoint).await, store.table(), CURSOR_KEY)
}

const CURSOR_KEY: &[u8] = b"test cursor key";

async fn client() -> Result<aws_sdk_dynamodb::Client, String> {
    Ok(client_at(endpoint()?).await)
}

async fn client_at(endpoint: &str) -> aws_sdk_dynamodb::Client {
    let base = sdk_config(Some(endpoint.to_owned())).await;
    let config = aws_sdk_dynamodb::config::Builder::from(&base)
        .credentials_provider(Credentials::new("test", "test", None, None, "tests"))
        .region(Region::new("us-east-1"))
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

fn table_name(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{prefix}-{}-{}-{nanos}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}
