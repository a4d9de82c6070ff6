//! A store on a fresh table of a local DynamoDB-API server, for tests (feature
//! `local-server`).
//!
//! Uses `DYNAMODB_ENDPOINT` when set (the test command starts one server with
//! `scripts/dynamodb-local.sh start`). Otherwise it runs that script with
//! `--owner-pid <this process>`: moto is installed into `.venv-moto` if needed, started on
//! a free port, and stopped when this process exits. There is no silent fallback: when
//! no server can be had, the error says why.

use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use aws_sdk_dynamodb::config::{Credentials, Region};

use crate::{DynamoStore, sdk_config};
use registry_store::StoreError;

/// The local server's endpoint URL, starting the server on first use.
pub fn endpoint() -> Result<&'static str, String> {
    static ENDPOINT: OnceLock<Result<String, String>> = OnceLock::new();
    ENDPOINT
        .get_or_init(|| match std::env::var("DYNAMODB_ENDPOINT") {
            Ok(url) if !url.is_empty() => Ok(url),
            _ => start_server(),
        })
        .as_deref()
        .map_err(|why| format!("no local DynamoDB-API server: {why}"))
}

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

const CURSOR_KEY: &[u8] = b"test cursor key";

async fn client() -> Result<aws_sdk_dynamodb::Client, String> {
    let base = sdk_config(Some(endpoint()?.to_owned())).await;
    let config = aws_sdk_dynamodb::config::Builder::from(&base)
        .credentials_provider(Credentials::new("test", "test", None, None, "tests"))
        .region(Region::new("us-east-1"))
        .build();
    Ok(aws_sdk_dynamodb::Client::from_conf(config))
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

fn table_name(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{prefix}-{}-{}-{nanos}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}
