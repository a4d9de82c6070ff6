#![allow(clippy::unwrap_used, clippy::expect_used)]
//! One rejecting case per validation rule reachable through HTTP, each asserting the
//! JSON Pointer of the violation. Every write path (POST, PUT, PATCH) validates.

mod common;

use common::{Server, agent_json, mcp_tool_json, start, tool_json};
use reqwest::Method;
use serde_json::{Value, json};

/// Sets `value` at the JSON Pointer `at` (creating objects on the way).
fn set(mut body: Value, at: &str, value: Value) -> Value {
    let mut node = &mut body;
    let tokens: Vec<&str> = at.trim_start_matches('/').split('/').collect();
    for token in &tokens[..tokens.len() - 1] {
        node = node.as_object_mut().unwrap().entry(token.to_string()).or_insert(json!({}));
    }
    node.as_object_mut().unwrap().insert(tokens[tokens.len() - 1].to_owned(), value);
    body
}

fn remove(mut body: Value, field: &str) -> Value {
    body.as_object_mut().unwrap().remove(field);
    body
}

async fn assert_rejected(s: &Server, collection: &str, name: &str, body: &Value, path: &str) {
    let r = s.send(s.req(Method::POST, collection, &s.editor).json(body)).await;
    assert_eq!(r.status.as_u16(), 400, "{name}: {}", r.text);
    assert_eq!(r.body["code"], "VALIDATION_FAILED", "{name}: {}", r.text);
    assert!(
        r.error_paths().iter().any(|p| p == path || p.starts_with(&format!("{path}/"))),
        "{name}: expected an error at {path}: {}",
        r.text
    );
}

fn function(name: &str, params: usize) -> Value {
    let parameters: serde_json::Map<String, Value> = (0..params)
        .map(|i| (format!("p{i}"), json!({"description": "P", "type": "string", "required": true})))
        .collect();
    json!({"name": name, "description": "F", "parameters": parameters})
}

#[tokio::test]
async fn every_tool_rule_rejects_with_its_path() {
    let s = start().await;
    let t = || tool_json("t1");
    let cases: Vec<(&str, Value, &str)> = vec![
        ("description 501 chars", set(t(), "/description", json!("d".repeat(501))), "/description"),
        ("empty description", set(t(), "/description", json!("")), "/description"),
        ("misspelled accessRules", set(t(), "/acessRules", json!([])), "/acessRules"),
        (
            "unknown nested field",
            set(t(), "/lifecycle", json!({"status": "active", "colour": 1})),
            "/lifecycle/colour",
        ),
        ("bad id", set(t(), "/toolId", json!("bad id!")), "/toolId"),
        ("bad action-group name", set(t(), "/name", json!("bad name!")), "/name"),
        ("timeout 0", set(t(), "/executionTimeout", json!(0)), "/executionTimeout"),
        ("timeout 901", set(t(), "/executionTimeout", json!(901)), "/executionTimeout"),
        (
            "no frameworks",
            set(t(), "/supportedAgentFrameworks", json!([])),
            "/supportedAgentFrameworks",
        ),
        ("bad lambda arn", set(t(), "/lambdaArn", json!("not-an-arn")), "/lambdaArn"),
        ("missing lambda arn", remove(t(), "lambdaArn"), "/lambdaArn"),
        ("bedrock needs functionSchema", remove(t(), "functionSchema"), "/functionSchema"),
        (
            "12 functions",
            set(
                t(),
                "/functionSchema",
                Value::Array((0..12).map(|i| function(&format!("f{i}"), 1)).collect()),
            ),
            "/functionSchema",
        ),
        (
            "6 parameters",
            set(t(), "/functionSchema", json!([function("f", 6)])),
            "/functionSchema/0",
        ),
        (
            "CEL syntax error",
            set(
                t(),
                "/accessRules",
                json!([{"condition": "user.roles.exists(r, ", "effect": "allow"}]),
            ),
            "/accessRules/0",
        ),
        (
            "SQL-style condition",
            set(
                t(),
                "/accessRules",
                json!([{"condition": "user.userType = 'internal'", "effect": "allow"}]),
            ),
            "/accessRules/0",
        ),
        (
            "condition over 2048 chars",
            set(
                t(),
                "/accessRules",
                json!([{"condition": format!("'{}' == 'a'", "a".repeat(2100)), "effect": "allow"}]),
            ),
            "/accessRules/0",
        ),
        (
            "65 rules",
            set(
                t(),
                "/accessRules",
                Value::Array((0..65).map(|_| json!({"effect": "allow"})).collect()),
            ),
            "/accessRules",
        ),
        (
            "mcp over plain http",
            set(mcp_tool_json("t1", "s"), "/url", json!("http://mcp.example.com/x")),
            "/url",
        ),
        (
            "mcp auth without secret",
            set(
                mcp_tool_json("t1", "s"),
                "/auth",
                json!({"clientId": "c", "tokenUrl": "https://auth.example.com/t"}),
            ),
            "/auth/clientSecret",
        ),
        (
            "inline code over 64 KiB",
            set(
                set(remove(t(), "lambdaArn"), "/executionType", json!("inline")),
                "/code",
                json!("x".repeat(65 * 1024 + 1)),
            ),
            "/code",
        ),
        (
            "lambdaArn on an inline tool",
            set(set(t(), "/executionType", json!("inline")), "/code", json!("1")),
            "/lambdaArn",
        ),
    ];
    for (name, body, path) in &cases {
        assert_rejected(&s, "/tools", name, body, path).await;
    }
    assert_eq!(s.get("/tools").await.body["items"], json!([]));
}

#[tokio::test]
async fn every_agent_rule_rejects_with_its_path() {
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    let a = || agent_json("a1", &["t1"]);
    let cases: Vec<(&str, Value, &str)> = vec![
        ("empty basePrompt", set(a(), "/basePrompt", json!("")), "/basePrompt"),
        ("bad id", set(a(), "/agentId", json!("-starts-with-dash")), "/agentId"),
        ("id too long", set(a(), "/agentId", json!("a".repeat(129))), "/agentId"),
        ("misspelled accessRules", set(a(), "/acessRules", json!([])), "/acessRules"),
        (
            "percentage over 100",
            set(a(), "/rolloutPolicy", json!({"percentage": 100.5})),
            "/rolloutPolicy/percentage",
        ),
        (
            "percentage three decimals",
            set(a(), "/rolloutPolicy", json!({"percentage": 12.345})),
            "/rolloutPolicy/percentage",
        ),
        (
            "unknown rollout field",
            set(a(), "/rolloutPolicy", json!({"percent": 5})),
            "/rolloutPolicy/percent",
        ),
        ("bad runtimeAdapter", set(a(), "/runtimeAdapter", json!("my-adapter")), "/runtimeAdapter"),
        (
            "unknown collaborator field",
            set(
                a(),
                "/collaborators",
                json!([{"agentId": "b", "instruction": "i", "historyRelay": "TO_AGENT", "extra": 1}]),
            ),
            "/collaborators/0/extra",
        ),
        ("missing tool", set(a(), "/toolIds", json!(["t1", "ghost"])), "/toolIds/1"),
        (
            "bad lifecycle status",
            set(a(), "/lifecycle", json!({"status": "sleeping"})),
            "/lifecycle/status",
        ),
        (
            "CEL with an undeclared variable",
            set(
                a(),
                "/accessRules",
                json!([{"condition": "usr.userId == 'x'", "effect": "allow"}]),
            ),
            "/accessRules/0",
        ),
    ];
    for (name, body, path) in &cases {
        assert_rejected(&s, "/agents", name, body, path).await;
    }
}

#[tokio::test]
async fn put_and_patch_validate_too() {
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    let long = json!("d".repeat(501));
    let r = s
        .send(s.req(Method::PUT, "/tools/t1", &s.editor).json(&set(
            tool_json("t1"),
            "/description",
            long.clone(),
        )))
        .await;
    r.assert_invalid_at("/description");
    let r = s.patch("/tools/t1", &s.editor, "\"1\"", &json!({"description": long})).await;
    r.assert_invalid_at("/description");
    let r = s.patch("/tools/t1", &s.editor, "\"1\"", &json!({"acessRules": []})).await;
    r.assert_invalid_at("/acessRules");
    assert_eq!(s.get("/tools/t1").await.body["version"], 1);
}
