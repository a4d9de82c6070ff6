//! The guard in remote mode without a registry to ask: which mode the environment
//! chooses, and the fail-closed paths that need no registry (the decisions themselves
//! are the decision table's, tests/tests/decide_table.rs, against the real router).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use bedrock_action_group::ToolError;
use registry_guard::{DynamoSource, Guard, Remote, RemoteConfig, handle_guarded};
use serde_json::{Value, json};

fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned())
}

#[test]
fn the_environment_chooses_the_mode_and_an_ambiguous_one_is_refused() {
    // no REGISTRY_URL: table mode (GuardConfig reads the rest)
    let table = RemoteConfig::from_vars(vars(&[("REGISTRY_TABLE", "t")])).unwrap();
    assert!(table.is_none());
    let remote = RemoteConfig::from_vars(vars(&[
        ("REGISTRY_URL", "http://127.0.0.1:8080/prod/"),
        ("REGISTRY_TOKEN", "ar_token"),
        ("REGISTRY_TOOL_ID", "convert_units@1.0.0"),
    ]))
    .unwrap()
    .unwrap();
    assert_eq!(remote.url.as_str(), "http://127.0.0.1:8080/prod/");
    assert_eq!(remote.tool_id, "convert_units@1.0.0");
    // every problem named: no token, no tool, and both modes' variables at once
    let problems = RemoteConfig::from_vars(vars(&[
        ("REGISTRY_URL", "http://127.0.0.1:8080"),
        ("REGISTRY_TABLE", "t"),
    ]))
    .unwrap_err()
    .to_string();
    for name in ["REGISTRY_TOKEN", "REGISTRY_TOOL_ID", "REGISTRY_TABLE"] {
        assert!(problems.contains(name), "{problems}");
    }
    let bad = RemoteConfig::from_vars(vars(&[
        ("REGISTRY_URL", "ftp://registry"),
        ("REGISTRY_TOKEN", "t"),
        ("REGISTRY_TOOL_ID", "t"),
    ]))
    .unwrap_err()
    .to_string();
    assert!(bad.contains("REGISTRY_URL"), "{bad}");
}

/// A guard asking a registry at `url`, and its decision lines.
fn guard(url: &str) -> (Guard<DynamoSource>, Arc<Mutex<Vec<Value>>>) {
    let config = RemoteConfig {
        tool_id: "convert_units@1.0.0".into(),
        url: url.parse().unwrap(),
        token: "ar_token".into(),
    };
    let lines = Arc::new(Mutex::new(Vec::new()));
    let l = lines.clone();
    let guard = Guard::remote(Remote::new(config).unwrap())
        .with_log(move |line| l.lock().unwrap().push(serde_json::from_str(line).unwrap()));
    (guard, lines)
}

fn event(attributes: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "messageVersion": "1.0",
        "agent": {"name": "units", "id": "AGENT1", "alias": "TSTALIASID", "version": "DRAFT"},
        "inputText": "convert", "sessionId": "s-1", "actionGroup": "convert_units",
        "function": "convert",
        "parameters": [
            {"name": "value", "type": "number", "value": "5"},
            {"name": "from", "type": "string", "value": "km"},
            {"name": "to", "type": "string", "value": "m"}
        ],
        "sessionAttributes": attributes, "promptSessionAttributes": {}
    }))
    .unwrap()
}

/// Runs `body` through the guard: the response's state and body text, and whether the
/// handler ran.
async fn call(guard: &Guard<DynamoSource>, body: &[u8]) -> (Value, bool) {
    let ran = std::sync::atomic::AtomicBool::new(false);
    let response = handle_guarded(guard, body, |_: Value| {
        ran.store(true, std::sync::atomic::Ordering::SeqCst);
        Ok::<_, ToolError>("ran")
    })
    .await;
    let json = serde_json::to_value(&response).unwrap();
    (json["response"]["functionResponse"].clone(), ran.into_inner())
}

#[tokio::test]
async fn an_unreachable_registry_refuses_the_call() {
    // a port nothing listens on
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (guard, lines) = guard(&format!("http://127.0.0.1:{port}"));
    assert!(guard.is_remote());
    let (response, ran) = call(&guard, &event(json!({"registryPrincipal": "v1.k.1.e30.x"}))).await;
    assert!(!ran);
    assert_eq!(response["responseState"], "FAILURE", "{response}");
    let text = response["responseBody"]["TEXT"]["body"].as_str().unwrap();
    assert!(text.contains("cannot be checked right now"), "{text}");
    let line = lines.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        (line["reason"].as_str(), line["effect"].as_str()),
        (Some("REGISTRY_UNAVAILABLE"), Some("deny"))
    );
    assert!(line["message"].as_str().unwrap().contains("was not reached"), "{line}");
    assert_eq!(line["toolId"], "convert_units@1.0.0");
}

#[tokio::test]
async fn without_a_token_nothing_is_asked() {
    let (guard, lines) = guard("http://127.0.0.1:9");
    let (response, ran) = call(&guard, &event(json!({}))).await;
    assert!(!ran);
    assert_eq!(response["responseState"], "FAILURE", "{response}");
    let line = lines.lock().unwrap().last().cloned().unwrap();
    assert_eq!(line["reason"], "NO_SIGNED_CONTEXT");
}
