//! Test harness: the Lambda's router on a fresh table of a DynamoDB-API server on
//! loopback.
//!
//! (`registry_store_dynamodb::local`; fails with the reason when no server can start).
#![allow(dead_code)]

use std::sync::Arc;

use admin_api::{GatewayAuth, RoleMap};
use registry_api::Registry;
use registry_store_dynamodb::DynamoStore;

/// The role map the example events are written for (`role-map.example.json`).
pub const ROLE_MAP: &str = include_str!("../../role-map.example.json");

/// Directory of the example events.
pub const EVENTS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/events");

/// A store on a fresh, empty table of the local DynamoDB-API server.
pub async fn store() -> DynamoStore {
    registry_store_dynamodb::local::fresh_store("admin-api").await.unwrap()
}

/// The Lambda's router (as `main` builds it) on a fresh table, with [`ROLE_MAP`].
pub async fn app() -> axum::Router {
    let roles = RoleMap::parse(ROLE_MAP).expect("example role map");
    let registry = Registry::new(Arc::new(store().await));
    admin_api::app(registry, Arc::new(GatewayAuth::new(roles)))
}
