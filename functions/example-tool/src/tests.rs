//! Runs every event under `events/` through the handler and checks the response.

use std::collections::BTreeSet;
use std::path::Path;

use bedrock_action_group::{ResponseState, handle};
use serde_json::{Value, json};

use crate::convert;

const KNOWN: &str = "m, km, cm, mm, mi, yd, ft, in, kg, g, t, lb, oz, l, ml, gal, K, C, F";

/// (event file, expected state, expected body).
fn cases() -> Vec<(&'static str, Option<ResponseState>, String)> {
    let reprompt = |p: &str, line: &str| {
        format!("Invalid arguments. Fix the parameter `{p}` and call the function again:\n- {line}")
    };
    vec![
        ("convert-length", None, r#"{"value":7.767,"unit":"mi","dimension":"length"}"#.into()),
        ("convert-temperature", None, r#"{"value":212.0,"unit":"F","dimension":"temperature"}"#.into()),
        ("api-schema-convert", None, r#"{"value":6.61,"unit":"lb","dimension":"mass"}"#.into()),
        ("below-absolute-zero", None, "-300 C is below absolute zero".into()),
        (
            "bad-number",
            Some(ResponseState::Reprompt),
            reprompt("value", r#"/value: expected a number, got "12abc""#),
        ),
        (
            "unknown-unit",
            Some(ResponseState::Reprompt),
            reprompt("from", &format!(r#"/from: unknown unit "furlong"; known units: {KNOWN}"#)),
        ),
        (
            "incompatible-units",
            Some(ResponseState::Reprompt),
            reprompt("to", "/to: cannot convert length to mass; use a length unit"),
        ),
        (
            "missing-action-group",
            Some(ResponseState::Failure),
            "malformed action-group event: /actionGroup: is required".into(),
        ),
        (
            "parameters-not-a-list",
            Some(ResponseState::Failure),
            "malformed action-group event: /parameters: must be a list of {name, type, value} objects, got object"
                .into(),
        ),
    ]
}

fn events_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/events"))
}

fn load(name: &str) -> Value {
    let text = std::fs::read_to_string(events_dir().join(format!("{name}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn every_event_file_gives_the_expected_response() {
    for (name, state, body) in cases() {
        let response = handle(&load(name), convert);
        assert_eq!(response.state(), state, "{name}: state");
        assert_eq!(response.body(), body, "{name}: body");
        let action_group = if name == "missing-action-group" { "" } else { "units" };
        assert_eq!(response.action_group(), action_group, "{name}: actionGroup");
    }
}

#[test]
fn every_event_file_is_covered() {
    let on_disk: BTreeSet<String> = std::fs::read_dir(events_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let covered: BTreeSet<String> = cases().into_iter().map(|(n, _, _)| n.to_string()).collect();
    assert_eq!(on_disk, covered);
}

#[test]
fn responses_are_the_documented_shape() {
    let function = json!({
        "messageVersion": "1.0",
        "response": {
            "actionGroup": "units",
            "function": "convert",
            "functionResponse": {
                "responseBody": {"TEXT": {"body": "{\"value\":7.767,\"unit\":\"mi\",\"dimension\":\"length\"}"}}
            }
        },
        "sessionAttributes": {"preferredSystem": "metric"}
    });
    let api = json!({
        "messageVersion": "1.0",
        "response": {
            "actionGroup": "units",
            "apiPath": "/convert",
            "httpMethod": "POST",
            "httpStatusCode": 200,
            "responseBody": {"application/json": {"body": "{\"value\":6.61,\"unit\":\"lb\",\"dimension\":\"mass\"}"}}
        }
    });
    for (file, expected) in [("convert-length", function), ("api-schema-convert", api)] {
        let response = serde_json::to_value(handle(&load(file), convert)).unwrap();
        assert_eq!(response, expected, "{file}");
    }
}

/// The response echoes the event's `messageVersion`, `actionGroup`, `function`, `apiPath`
/// and `httpMethod` exactly: any string (escapes, Unicode, empty) comes back as sent, and
/// a name the event lacks is `""`: the documented response format requires each member.
#[test]
fn echoed_fields_come_back_exactly_and_as_empty_when_absent() {
    let odd = ["units", "", "ünïts \"q\" \\ /", "a\u{1F600}b", "x\ty"];
    for name in odd {
        for file in ["convert-length", "missing-action-group", "parameters-not-a-list"] {
            let mut event = load(file);
            event["actionGroup"] = json!(name);
            let response = serde_json::to_value(handle(&event, convert)).unwrap();
            assert_eq!(response["response"]["actionGroup"], json!(name), "{file}: {response}");
            assert_eq!(response["response"]["function"], event["function"], "{file}");
            assert_eq!(response["messageVersion"], "1.0", "{file}");
        }
        let mut event = load("api-schema-convert");
        event["actionGroup"] = json!(name);
        let response = serde_json::to_value(handle(&event, convert)).unwrap();
        assert_eq!(response["response"]["actionGroup"], json!(name));
        assert_eq!(response["response"]["apiPath"], "/convert");
        assert_eq!(response["response"]["httpMethod"], "POST");
    }
    // Absent in the event: `""` in the response (the malformed-event FAILURE).
    let response = serde_json::to_value(handle(&load("missing-action-group"), convert)).unwrap();
    assert_eq!(response["response"]["actionGroup"], "", "{response}");
    assert_eq!(response["response"]["function"], "convert");
    let mut event = load("missing-action-group");
    event.as_object_mut().unwrap().remove("function");
    let response = serde_json::to_value(handle(&event, convert)).unwrap();
    assert_eq!(response["response"]["actionGroup"], "", "{response}");
    assert_eq!(response["response"]["function"], "", "{response}");
    event["apiPath"] = json!("/convert");
    let response = serde_json::to_value(handle(&event, convert)).unwrap();
    let echoed = response["response"].as_object().unwrap();
    assert_eq!(echoed["apiPath"], "/convert");
    for empty in ["actionGroup", "httpMethod"] {
        assert_eq!(echoed.get(empty), Some(&json!("")), "{empty}: {response}");
    }
    assert!(!echoed.contains_key("function"), "the API form has no `function`: {response}");
    // A non-string name is not a name: `""` too; a malformed event's own messageVersion
    // is echoed as well.
    let mut event = load("parameters-not-a-list");
    event["actionGroup"] = json!(7);
    event["messageVersion"] = json!("1.1");
    let response = serde_json::to_value(handle(&event, convert)).unwrap();
    assert_eq!(response["response"]["actionGroup"], "", "{response}");
    assert_eq!(response["messageVersion"], "1.1");
}
