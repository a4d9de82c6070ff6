#![allow(clippy::unwrap_used, clippy::expect_used)]
//! This crate's binary as Lambda runs it (the tests' Lambda Runtime API), answering raw
//! events no test-invoke would build: what it sends back has every member the documented
//! response format requires, echoing the event's names and `""` for a name it lacks.

use std::path::PathBuf;

use registry_e2e::{Lambda, Table};
use serde_json::{Value, json};

fn event(file: &str) -> Value {
    let path = format!("{}/events/{file}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn malformed_events_get_every_documented_member_back() {
    let table = Table::fresh().await;
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_example-tool"));
    // The guard is off: this is about the answer to events Bedrock would never send.
    let tool = Lambda::start_at(exe, "example-tool", &table, &[("REGISTRY_GUARD", "off")]).await;

    let answer = tool.call(&event("missing-action-group")).await;
    let response = &answer["response"];
    assert_eq!(response["actionGroup"], "", "{answer}");
    assert_eq!(response["function"], "convert", "{answer}");
    assert_eq!(response["functionResponse"]["responseState"], "FAILURE", "{answer}");
    let body = response["functionResponse"]["responseBody"]["TEXT"]["body"].as_str().unwrap();
    assert!(body.contains("/actionGroup"), "{answer}");

    let mut api = event("api-schema-convert");
    let fields = api.as_object_mut().unwrap();
    fields.remove("actionGroup");
    fields.remove("httpMethod");
    let answer = tool.call(&api).await;
    let response = &answer["response"];
    assert_eq!((&response["actionGroup"], &response["httpMethod"]), (&json!(""), &json!("")));
    assert_eq!(response["apiPath"], "/convert", "{answer}");
    assert_eq!(response["httpStatusCode"], 500, "{answer}");

    let mut named = event("parameters-not-a-list");
    named["actionGroup"] = json!(["units"]);
    named.as_object_mut().unwrap().remove("function");
    let answer = tool.call(&named).await;
    assert_eq!(
        (&answer["response"]["actionGroup"], &answer["response"]["function"]),
        (&json!(""), &json!(""))
    );

    // A good event's names come back as they came.
    let answer = tool.call(&event("convert-length")).await;
    assert_eq!(answer["response"]["actionGroup"], "units", "{answer}");
    assert_eq!(answer["response"]["function"], "convert", "{answer}");
}
