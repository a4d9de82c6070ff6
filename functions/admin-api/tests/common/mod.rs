//! Test harness: the Lambda's router on a fresh table of a DynamoDB-API server on
//! loopback.
//!
//! Uses `DYNAMODB_ENDPOINT` when set (CI starts one server with
//! `scripts/dynamodb-local.sh start`). Otherwise it runs that script with
//! `--owner-pid <this test process>`: moto is installed into `.venv-moto` if needed,
//! started on a free port, and stopped when the test process exits. If no server can be
//! had, the tests fail with the reason; nothing is skipped.
#![allow(dead_code)]

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

use admin_api::{GatewayAuth, RoleMap};
use aws_sdk_dynamodb::config::{Credentials, Region};
use registry_api::Registry;
use registry_store_dynamodb::DynamoStore;

/// The role map the example events are written for (`role-map.example.json`).
pub const ROLE_MAP: &str = include_str!("../../role-map.example.json");

/// Directory of the example events.
pub const EVENTS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/events");

/// Endpoint of the server, or why there is none.
fn endpoint() -> &'static str {
    static ENDPOINT: OnceLock<Result<String, String>> = OnceLock::new();
    let found = ENDPOINT.get_or_init(|| {
        if let Some(url) = std::env::var("DYNAMODB_ENDPOINT").ok().filter(|u| !u.is_empty()) {
            return Ok(url);
        }
        start_server()
    });
    match found {
        Ok(url) => url,
        Err(why) => panic!("no DynamoDB-API server for the tests: {why}"),
    }
}

fn start_server() -> Result<String, String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/dynamodb-local.sh");
    let pid = std::process::id().to_string();
    let out = Command::new("bash")
        .args([script, "start", "--owner-pid", &pid])
        .output()
        .map_err(|e| format!("cannot run {script}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{script} start failed ({}):\n{stderr}", out.status));
    }
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("export DYNAMODB_ENDPOINT="))
        .map(str::to_owned)
        .ok_or_else(|| format!("{script} printed no endpoint:\n{stdout}\n{stderr}"))
}

/// A unique table name for this process.
fn table_name() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("admin-api-{}-{}-{nanos}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A store on a fresh, empty table (fake credentials, region us-east-1).
pub async fn store() -> DynamoStore {
    let endpoint = endpoint().to_owned();
    let base = registry_store_dynamodb::sdk_config(Some(endpoint)).await;
    let config = aws_sdk_dynamodb::config::Builder::from(&base)
        .credentials_provider(Credentials::new("test", "test", None, None, "tests"))
        .region(Region::new("us-east-1"))
        .build();
    let client = aws_sdk_dynamodb::Client::from_conf(config);
    let store = DynamoStore::new(client, table_name(), b"test cursor key");
    store.create_table().await.expect("create table");
    store
}

/// The Lambda's router (as `main` builds it) on a fresh table, with [`ROLE_MAP`].
pub async fn app() -> axum::Router {
    let roles = RoleMap::parse(ROLE_MAP).expect("example role map");
    let registry = Registry::new(Arc::new(store().await));
    admin_api::app(registry, Arc::new(GatewayAuth::new(roles)))
}
