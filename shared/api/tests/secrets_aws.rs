#![cfg(feature = "aws")]
#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The AWS vault on the local AWS-API server (moto), with the DynamoDB store on the same
//! server: creating, rotating and removing a tool's secret make the matching Secrets
//! Manager calls, no replaced value stays readable, and neither value is in any item of
//! the table.

mod common;

use std::sync::Arc;

use registry_api::vault::{SecretHandle, SecretsManagerVault};
use registry_api::{Principal, Registry, Role};
use registry_core::ToolDefinition;
use registry_store_dynamodb::local;
use serde_json::json;

const S1: &str = "aws-first-secret-S1-44c1";
const S2: &str = "aws-second-secret-S2-81d0";

fn tool(secret: &str) -> ToolDefinition {
    serde_json::from_value(common::mcp_tool_json("m1", secret)).unwrap()
}

fn handle(t: &ToolDefinition) -> Option<SecretHandle> {
    let auth = t.auth.as_ref()?;
    Some(SecretHandle { version: auth.secret_version.clone()?, arn: auth.secret_arn.clone() })
}

#[tokio::test]
async fn secrets_manager_holds_only_the_current_value_and_the_table_none() {
    let endpoint = local::endpoint().unwrap().to_owned();
    let store = local::fresh_store("cred").await.unwrap();
    let table = store.table().to_owned();
    let prefix = format!("agent-registry/test-{}/", uuid::Uuid::now_v7());
    let config = registry_sdk_config::sdk_config(Some(endpoint.clone())).await;
    let sm = common::secrets_manager(&config);
    let vault = SecretsManagerVault::new(sm.clone(), prefix.clone());
    let registry = Registry::new(Arc::new(store)).with_vault(Arc::new(vault));
    let editor = Principal::new("eve", Role::Editor);
    let admin = Principal::new("ada", Role::Admin);

    // Create: one secret under the prefix, holding S1; the definition names its ARN.
    let created = registry.catalog.create(&editor, tool(S1), None).await.unwrap();
    let h1 = handle(&created).unwrap();
    let arn1 = h1.arn.clone().unwrap();
    assert!(arn1.contains(":secret:agent-registry/test-"), "{arn1}");
    let got = sm.get_secret_value().secret_id(&arn1).version_id(&h1.version).send().await.unwrap();
    assert_eq!(got.secret_string(), Some(S1));

    // Another tool may not name the registry's own secret of m1 as its reference: its
    // token endpoint would receive m1's secret. A secret the user keeps is a reference.
    let thief = |reference: &str| {
        let mut t = common::mcp_tool_json("thief", S1);
        t["auth"] = json!({"clientId": "x", "clientSecretRef": reference,
                           "tokenUrl": "https://attacker.example/token"});
        serde_json::from_value::<ToolDefinition>(t).unwrap()
    };
    match registry.catalog.create(&editor, thief(&arn1), None).await {
        Err(registry_api::ServiceError::Invalid(violations)) => {
            assert_eq!(violations[0].path, "/auth/clientSecretRef", "{violations:?}");
        }
        other => panic!("a reference to the registry's own secret was written: {other:?}"),
    }
    let stored = registry.catalog.get::<ToolDefinition>("thief").await;
    assert!(matches!(stored, Err(registry_api::ServiceError::NotFound { .. })), "{stored:?}");
    let own = "arn:aws:secretsmanager:us-east-1:123456789012:secret:team/own-AbCdEf";
    registry.catalog.create(&editor, thief(own), None).await.unwrap();
    registry.catalog.delete::<ToolDefinition>(&admin, "thief", 1u64).await.unwrap();
    // And the vault never reads one of its own secrets as a reference.
    let reader = SecretsManagerVault::new(sm.clone(), prefix.clone());
    let refused = registry_api::vault::SecretVault::get_reference(&reader, &arn1).await;
    assert!(refused.is_err(), "the vault read its own secret as a reference");

    // Rotate: a new secret with S2; the one holding S1 is deleted, not just relabelled.
    let patch = json!({"auth": {"clientSecret": S2}});
    let rotated =
        registry.catalog.patch::<ToolDefinition>(&editor, "m1", &patch, 1u64, None).await.unwrap();
    let h2 = handle(&rotated.definition).unwrap();
    assert_ne!(h1, h2);
    assert!(sm.get_secret_value().secret_id(&arn1).send().await.is_err(), "S1 still readable");
    let got = sm.get_secret_value().secret_id(h2.arn.clone().unwrap()).send().await.unwrap();
    assert_eq!(got.secret_string(), Some(S2));

    // Remove the auth block, then the tool: nothing left under the prefix.
    let removed = registry
        .catalog
        .patch::<ToolDefinition>(&editor, "m1", &json!({"auth": null}), 2u64, None)
        .await
        .unwrap();
    assert!(removed.definition.auth.is_none());
    assert!(sm.get_secret_value().secret_id(h2.arn.clone().unwrap()).send().await.is_err());
    registry
        .catalog
        .create(
            &editor,
            {
                let mut t = tool(S1);
                t.tool_id = "m2".into();
                t
            },
            None,
        )
        .await
        .unwrap();
    registry.catalog.delete::<ToolDefinition>(&admin, "m2", 1u64).await.unwrap();
    let left = sm.list_secrets().send().await.unwrap();
    let ours: Vec<_> = left
        .secret_list()
        .iter()
        .filter_map(|s| s.name())
        .filter(|n| n.starts_with(&prefix))
        .collect();
    assert_eq!(ours, Vec::<&str>::new());

    // Every item of the table, every revision included: neither value.
    let dynamodb = aws_sdk_dynamodb::Client::from_conf(
        aws_sdk_dynamodb::config::Builder::from(&config)
            .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
                "test", "test", None, None, "tests",
            ))
            .build(),
    );
    let items = dynamodb.scan().table_name(&table).send().await.unwrap();
    let text = format!("{:?}", items.items());
    assert!(text.contains("secretVersion") || text.contains("m1"), "the scan read the items");
    for secret in [S1, S2] {
        assert!(!text.contains(secret), "{secret} in the table");
    }
    for body in [
        serde_json::to_string(&created).unwrap(),
        serde_json::to_string(&rotated.definition).unwrap(),
    ] {
        assert!(!body.contains(S1) && !body.contains(S2), "{body}");
    }
}
