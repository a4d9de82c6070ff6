//! Test harness: a fresh table of a local DynamoDB-API server per test
//! (`registry_store_dynamodb::local`; fails with the reason when no server can start).
#![allow(dead_code)]

use std::sync::Arc;

use registry_store::contract::Fixture;
use registry_store_dynamodb::DynamoStore;

/// A store on a fresh, empty table, with its call counter reset.
pub async fn store() -> DynamoStore {
    let store = registry_store_dynamodb::local::fresh_store("registry").await.unwrap();
    store.reset_calls();
    store
}

/// The contract suite's fixture.
pub async fn fixture() -> Fixture {
    Fixture::new(Arc::new(store().await), ())
}
