//! `handle_json` and `handle_body` answer event text exactly as parsing a `Value` first and
//! calling `handle` does: same validation, same messages and JSON pointers, same
//! `serde_json` error for text that is not valid JSON; repeated keys and map order as a
//! `Value` has them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bedrock_action_group::{
    ActionGroupResponse, ResponseState, ToolError, handle, handle_body, handle_json,
    unreadable_response,
};
use serde_json::Value;

fn echo(args: Value) -> Result<Value, ToolError> {
    Ok(args)
}

/// What `handle_json` answered before it read text itself: parse a `Value`, then `handle`.
fn through_value(text: &str) -> ActionGroupResponse {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => handle(&v, echo),
        Err(e) => unreadable_response(&e),
    }
}

fn same(text: &str) -> ActionGroupResponse {
    let direct = handle_json(text, echo);
    assert_eq!(direct, through_value(text), "{text}");
    direct
}

#[test]
fn a_repeated_key_keeps_its_last_value() {
    let r = same(r#"{"actionGroup": "g", "function": "f", "parameters": 3, "parameters": []}"#);
    assert_eq!((r.state(), r.body()), (None, "{}"));
    let r = same(
        r#"{"actionGroup": "g", "function": "f", "parameters": [{"name": "a", "value": 1, "value": "x", "name": "b"}]}"#,
    );
    assert_eq!(r.body(), r#"{"b":"x"}"#);
    same(
        r#"{"actionGroup": "g", "function": "f", "sessionAttributes": {"k": 1, "k": "v", "a": "b"}}"#,
    );
    same(r#"{"actionGroup": 1, "function": "f", "actionGroup": "g"}"#);
}

#[test]
fn maps_are_judged_in_key_order() {
    let r = same(r#"{"actionGroup": "g", "function": "f", "sessionAttributes": {"b": 1, "a": 2}}"#);
    assert_eq!(
        r.body(),
        "malformed action-group event: /sessionAttributes/a: must be a string, got number"
    );
    let r = same(
        r#"{"actionGroup": "g", "apiPath": "/p", "httpMethod": "POST", "requestBody": {"content": {
            "text/plain": {"properties": [{"name": "a", "type": "integer", "value": "1"}]},
            "application/json": {"properties": [{"name": "a", "type": "integer", "value": "2"}]}}}}"#,
    );
    assert!(r.body().contains("/a: is given more than once with different values"), "{}", r.body());
    same(
        r#"{"actionGroup": "g", "apiPath": "/p", "httpMethod": "POST", "requestBody": {"content": {
            "b": {"properties": {}}, "a": 7}}}"#,
    );
}

#[test]
fn escapes_and_odd_values_read_alike() {
    same(
        r#"{"action\u0047roup": "g\n\"", "funct\u0069on": "\u00e9\ud83d\ude00", "parameters": [{"name": "q", "value": "a\\b"}]}"#,
    );
    same(
        r#"{"actionGroup": "g", "function": "f", "agent": {"name": "\u0000", "extra": [1, {"x": null}]}}"#,
    );
    same(r#"  {"actionGroup": "g", "function": null, "apiPath": "/p", "httpMethod": "GET"}  "#);
    same(
        r#"{"actionGroup": "g", "function": "f", "parameters": [{"name": "q", "value": "x"}, null]}"#,
    );
}

#[test]
fn text_serde_json_refuses_is_refused_alike() {
    let deep = format!(
        r#"{{"actionGroup": "g", "function": "f", "x": {}{}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    for text in [
        r#"{"actionGroup": "g", "function": "f", "unknown": "\ud800"}"#,
        r#"{"actionGroup": "g", "function": "f", "unknown": 1e400}"#,
        r#"{"actionGroup": "g", "function": "f", "parameters": {"q": "\udc00"}}"#,
        r#"{"actionGroup": "g", "function": "f"} x"#,
        r#"{"actionGroup": "g", "function": "f",}"#,
        r#"{"actionGroup": "g", "function": "f", "k": tru}"#,
        "{\"actionGroup\": \"g\u{1}\", \"function\": \"f\"}",
        &deep,
        "[1, 2",
        "",
    ] {
        let r = same(text);
        assert!(r.body().starts_with("malformed action-group event: not valid JSON: "), "{text}");
    }
    for text in ["[]", "\"text\"", "null", "12", "true", "[{\"a\": [1]}]"] {
        same(text);
    }
}

#[test]
fn an_invocation_body_reads_as_its_text() {
    let text =
        r#"{"actionGroup": "g", "function": "f", "parameters": [{"name": "a", "value": "x"}]}"#;
    assert_eq!(handle_body(text.as_bytes(), echo), same(text));
    let r = handle_body(b"{\"actionGroup\": \"g\xff\", \"function\": \"f\"}", echo);
    assert_eq!(r.state(), Some(ResponseState::Failure));
    assert!(r.body().starts_with("malformed action-group event: not valid JSON: "), "{}", r.body());
}
