#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The vault contract of reviewed secrets, on both vaults (the `serve` file vault over
//! SQLite, and Secrets Manager over DynamoDB on the local AWS-API server): after every
//! path a proposal can take (rejected, cancelled, stale, applied) and after plain
//! writes, the only secret values left readable are the one the served definition names.

mod common;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use common::mcp_tool_json;
use registry_api::vault::SecretVault;
use registry_api::{Outcome, Principal, Registry, ReviewPolicy, Role, ServiceError};
use registry_core::ToolDefinition;
use serde_json::{Value, json};

/// Every secret value the vault holds and would give back, sorted.
type Readable = Box<dyn Fn() -> Pin<Box<dyn Future<Output = Vec<String>> + Send>> + Send + Sync>;

const REVIEW: ReviewPolicy = ReviewPolicy { required: true, approvals: 1 };

fn secret(step: &str) -> String {
    format!("review-secret-{step}-7f3a")
}

/// The served tool's version.
async fn version(registry: &Registry) -> u64 {
    let tool = registry.catalog.get::<ToolDefinition>("m1").await.unwrap();
    tool.server.version.unwrap()
}

/// `who`'s patch of `m1` at its served version, checked to end as `outcome`: the id of
/// the proposal it opened, if any.
async fn write(
    registry: &Registry,
    who: &Principal,
    patch: Value,
    outcome: Outcome,
) -> Option<String> {
    let at = version(registry).await;
    let written =
        registry.catalog.patch::<ToolDefinition>(who, "m1", &patch, at, None).await.unwrap();
    assert_eq!(written.outcome, outcome);
    written.proposal.map(|p| p.id)
}

/// A patch rotating `m1`'s secret to `value`.
fn rotation(value: &str) -> Value {
    json!({"auth": {"clientSecret": value}})
}

/// Walks every path of a proposal carrying a secret, checking after each what is
/// readable: while a proposal is open, its value and the served one; after, the served
/// one alone.
async fn walk(registry: Registry, readable: Readable) {
    let editor = Principal::new("eve", Role::Editor);
    let approver = Principal::new("ann", Role::Approver);
    let admin = Principal::new("ada", Role::Admin);
    let expect = |values: &[&String]| {
        let mut v: Vec<String> = values.iter().map(|s| (*s).clone()).collect();
        v.sort();
        v
    };
    let (s0, s1, s2, s3, s4, s5, s6) = (
        secret("s0"),
        secret("s1"),
        secret("s2"),
        secret("s3"),
        secret("s4"),
        secret("s5"),
        secret("s6"),
    );
    let tool: ToolDefinition = serde_json::from_value(mcp_tool_json("m1", &s0)).unwrap();
    registry.catalog.create(&admin, tool, None).await.unwrap();
    assert_eq!(readable().await, expect(&[&s0]), "created");

    // Opened, then rejected.
    let id = write(&registry, &editor, rotation(&s1), Outcome::Proposed).await.unwrap();
    assert_eq!(readable().await, expect(&[&s0, &s1]), "open");
    registry.catalog.reject(&approver, &id, Some("not now")).await.unwrap();
    assert_eq!(readable().await, expect(&[&s0]), "rejected");

    // Opened, then cancelled by its author.
    let id = write(&registry, &editor, rotation(&s2), Outcome::Proposed).await.unwrap();
    registry.catalog.cancel(&editor, &id).await.unwrap();
    assert_eq!(readable().await, expect(&[&s0]), "cancelled");

    // Opened, then overtaken by a plain write: approving it finds it stale.
    let id = write(&registry, &editor, rotation(&s3), Outcome::Proposed).await.unwrap();
    write(&registry, &admin, rotation(&s4), Outcome::Updated).await;
    let stale = registry.catalog.approve(&approver, &id).await;
    assert!(matches!(stale, Err(ServiceError::ProposalConflict(_))), "{stale:?}");
    assert_eq!(registry.catalog.proposal(&id).await.unwrap().state.as_str(), "stale");
    assert_eq!(readable().await, expect(&[&s4]), "stale");

    // Opened, then approved: the rotation applies and the replaced value goes.
    let id = write(&registry, &editor, rotation(&s5), Outcome::Proposed).await.unwrap();
    let applied = registry.catalog.approve(&approver, &id).await.unwrap();
    assert_eq!(applied.state.as_str(), "applied");
    assert_eq!(readable().await, expect(&[&s5]), "approved rotation");

    // A proposal that keeps the served secret, rejected: the served value stays.
    let rules = json!({"accessRules": [{"effect": "allow"}]});
    let id = write(&registry, &editor, rules, Outcome::Proposed).await.unwrap();
    registry.catalog.reject(&approver, &id, Some("no")).await.unwrap();
    assert_eq!(readable().await, expect(&[&s5]), "a proposal without a new secret");
    let served = registry.catalog.get::<ToolDefinition>("m1").await.unwrap();
    assert!(served.auth.unwrap().secret_version.is_some());

    // A plain rotation.
    write(&registry, &admin, rotation(&s6), Outcome::Updated).await;
    assert_eq!(readable().await, expect(&[&s6]), "plain write");
}

#[tokio::test]
async fn the_file_vault_keeps_only_the_served_secret_after_every_review_path() {
    let dir = tempfile::tempdir().unwrap();
    let store = registry_store_sqlite::SqliteStore::open(dir.path().join("registry.db")).unwrap();
    let vault = Arc::new(registry_api::vault::FileVault::open(dir.path()).unwrap());
    let registry = Registry::new(Arc::new(store)).with_vault(vault.clone()).with_review(REVIEW);
    let path = dir.path().join("secrets.json");
    let readable: Readable = Box::new(move || {
        let (vault, path) = (vault.clone(), path.clone());
        Box::pin(async move {
            // Every entry of the file, opened with the vault's key.
            let file: serde_json::Value = match std::fs::read(&path) {
                Ok(bytes) => serde_json::from_slice(&bytes).unwrap(),
                Err(_) => json!({"entries": []}),
            };
            let mut values = Vec::new();
            for entry in file["entries"].as_array().unwrap() {
                let handle = registry_api::vault::SecretHandle {
                    version: entry["version"].as_str().unwrap().to_owned(),
                    arn: None,
                };
                let tool = entry["tool"].as_str().unwrap();
                let value = vault.get(tool, &handle).await.unwrap().expect("an entry reads");
                values.push(value.expose().to_owned());
            }
            values.sort();
            values
        })
    });
    walk(registry, readable).await;
}

#[cfg(feature = "aws")]
#[tokio::test]
async fn secrets_manager_keeps_only_the_served_secret_after_every_review_path() {
    use registry_api::vault::SecretsManagerVault;
    use registry_store_dynamodb::local;

    let endpoint = local::endpoint().unwrap().to_owned();
    let store = local::fresh_store("review-secrets").await.unwrap();
    let prefix = format!("agent-registry/review-{}/", uuid::Uuid::now_v7());
    let config = registry_sdk_config::sdk_config(Some(endpoint)).await;
    let sm = common::secrets_manager(&config);
    let vault = SecretsManagerVault::new(sm.clone(), prefix.clone());
    let registry = Registry::new(Arc::new(store)).with_vault(Arc::new(vault)).with_review(REVIEW);
    let readable: Readable = Box::new(move || {
        let (sm, prefix) = (sm.clone(), prefix.clone());
        Box::pin(async move {
            // Every secret under the prefix that still gives a value.
            let mut values = Vec::new();
            let mut token = None;
            loop {
                let page = sm.list_secrets().set_next_token(token).send().await.unwrap();
                for listed in page.secret_list() {
                    let Some(name) = listed.name().filter(|n| n.starts_with(&prefix)) else {
                        continue;
                    };
                    if let Ok(got) = sm.get_secret_value().secret_id(name).send().await {
                        values.extend(got.secret_string().map(str::to_owned));
                    }
                }
                token = page.next_token().map(str::to_owned);
                if token.is_none() {
                    break;
                }
            }
            values.sort();
            values
        })
    });
    walk(registry, readable).await;
}
