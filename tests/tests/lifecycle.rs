//! A stack's whole life across the binaries: the custom resource registers, updates and
//! deletes a tool and an agent; the admin API (API Gateway events, IAM callers) reads
//! and resolves what it wrote, on the same table.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{ADMIN, AGENT, READER, Stack, TOOL, admin_api, agent, api, assert_success, tool};
use registry_e2e::Table;
use registry_e2e::events::STACK_ID;
use serde_json::{Value, json};

fn internal_user() -> Value {
    json!({"user": {"userId": "u-1", "userType": "internal-user"}, "account": {"accountId": "111122223333"}})
}

fn group_names(body: &Value) -> Vec<String> {
    body["inlineAgent"]["actionGroups"]
        .as_array()
        .map(|groups| {
            groups.iter().filter_map(|g| g["actionGroupName"].as_str().map(str::to_owned)).collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn stack_create_update_delete_is_reflected_by_the_admin_api() {
    let table = Table::fresh().await;
    let stack = Stack::start(&table).await;
    let api_fn = admin_api(&table).await;

    // Stack create: tool, then the agent that uses it.
    stack.create(TOOL, "ConvertTool", &tool()).await;
    stack.create(AGENT, "TravelAgent", &agent()).await;

    let (status, stored) = api(&api_fn, "GET", "/tools/convert_units@1.0.0", None, READER).await;
    assert_eq!(status, 200, "{stored}");
    assert_eq!(stored["createdBy"], format!("cloudformation:{STACK_ID}"));
    assert_eq!(stored["executionTimeout"], 30, "a CloudFormation string stored as a number");
    assert_eq!(stored["functionSchema"][0]["parameters"]["value"]["required"], true);
    assert_eq!(stored["tags"]["retries"], "3", "tags stay strings");

    let path = "/agents/travel-helper/resolve";
    let (status, resolved) = api(&api_fn, "POST", path, Some(&internal_user()), READER).await;
    assert_eq!(status, 200, "{resolved}");
    assert_eq!(group_names(&resolved), ["convert_units"], "{resolved}");
    assert_eq!(resolved["version"], 1);
    // What the deployed stack resolves to is an InvokeInlineAgent request AWS accepts.
    let mut request = resolved["inlineAgent"].clone();
    request["sessionId"] = json!("stack-session-1");
    request["inputText"] = json!("How many miles is 5 km?");
    aws_conformance::Model::bedrock_agent_runtime().assert("InvokeInlineAgentRequest", &request);

    // Stack update: the rule now admits external users only.
    let mut changed = agent();
    changed["accessRules"][0]["condition"] = json!("user.userType == 'external-user'");
    let updated = stack
        .send("Update", AGENT, "TravelAgent", &changed, Some("travel-helper"), Some(&agent()))
        .await;
    assert_success(&updated.put);
    let (status, refused) = api(&api_fn, "POST", path, Some(&internal_user()), READER).await;
    assert_eq!(status, 403, "{refused}");
    assert_eq!(refused["code"], "ACCESS_DENIED", "{refused}");

    // Stack delete: the agent first (it depends on the tool), then the tool.
    assert_success(
        &stack
            .send("Delete", AGENT, "TravelAgent", &changed, Some("travel-helper"), None)
            .await
            .put,
    );
    assert_success(
        &stack
            .send("Delete", TOOL, "ConvertTool", &tool(), Some("convert_units@1.0.0"), None)
            .await
            .put,
    );

    for path in ["/agents/travel-helper", "/tools/convert_units@1.0.0"] {
        let (status, body) = api(&api_fn, "GET", path, None, ADMIN).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    let (status, tools) = api(&api_fn, "GET", "/tools", None, ADMIN).await;
    assert_eq!(status, 200, "{tools}");
    assert_eq!(tools["items"], json!([]), "{tools}");
    let (status, agents) = api(&api_fn, "GET", "/agents", None, ADMIN).await;
    assert_eq!(status, 200, "{agents}");
    assert_eq!(agents["items"], json!([]), "{agents}");
}
