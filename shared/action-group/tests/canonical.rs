//! Conversions to and from the canonical tool call / tool result form.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bedrock_action_group::{
    ActionGroupEvent, ResponseState, ToolCall, ToolError, ToolResult, handle, parse_event,
};
use serde::Deserialize;
use serde_json::json;

fn event() -> ActionGroupEvent {
    parse_event(&json!({
        "messageVersion": "1.0",
        "actionGroup": "shop",
        "function": "search",
        "sessionId": "s-1",
        "parameters": [
            {"name": "q", "type": "string", "value": "shoes"},
            {"name": "n", "type": "integer", "value": "3"},
            {"name": "max", "type": "number", "value": "9.5"},
            {"name": "new", "type": "boolean", "value": "TRUE"},
            {"name": "tags", "type": "array", "value": "[a, b]"}
        ]
    }))
    .unwrap()
}

#[test]
fn event_to_tool_call() {
    let call = ToolCall::from_event(&event(), "req-1").unwrap();
    assert_eq!(
        serde_json::to_value(&call).unwrap(),
        json!({"id": "req-1", "name": "search", "arguments": {"q": "shoes", "n": 3, "max": 9.5, "new": true, "tags": ["a", "b"]}})
    );
}

#[test]
fn invalid_event_arguments_are_reported() {
    let bad = parse_event(&json!({"actionGroup": "a", "function": "f", "parameters": [{"name": "n", "type": "integer", "value": "x"}]})).unwrap();
    let err = ToolCall::from_event(&bad, "id").unwrap_err();
    assert_eq!(err.errors[0].pointer, "/n");
}

#[test]
fn tool_call_to_event_and_back() {
    let call = ToolCall::from_event(&event(), "req-1").unwrap();
    let back = ActionGroupEvent::Function(call.to_event("shop"));
    assert_eq!(back.session_id(), "req-1");
    assert_eq!(ToolCall::from_event(&back, "req-1").unwrap(), call);
}

#[test]
fn object_arguments_travel_as_json_strings_and_are_decoded_by_extraction() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct Filters {
        min: u32,
    }
    #[derive(Debug, Deserialize, PartialEq)]
    struct Args {
        filters: Filters,
        skip: Option<String>,
    }
    let call: ToolCall = serde_json::from_value(
        json!({"id": "1", "name": "f", "arguments": {"filters": {"min": 2}, "skip": null}}),
    )
    .unwrap();
    let event = call.to_event("g");
    assert_eq!(event.parameters.len(), 1);
    assert_eq!(
        (event.parameters[0].kind.as_str(), event.parameters[0].value.as_str()),
        ("string", r#"{"min":2}"#)
    );
    let raw = serde_json::to_value(&event).unwrap();
    let r = handle(&raw, |a: Args| Ok::<_, ToolError>(format!("{a:?}")));
    assert_eq!(r.body(), "Args { filters: Filters { min: 2 }, skip: None }");
}

#[test]
fn responses_to_tool_results() {
    let ev = event();
    let ok = ToolResult::from_response(&ev.respond().text("found 3").build());
    assert_eq!(
        serde_json::to_value(&ok).unwrap(),
        json!({"content": [{"type": "text", "text": "found 3"}], "isError": false})
    );
    let bad = ToolResult::from_response(
        &ev.respond().text("fix q").state(Some(ResponseState::Reprompt)).build(),
    );
    assert!(bad.is_error);
    let failed =
        ToolResult::from_response(&ev.respond().state(Some(ResponseState::Failure)).build());
    assert!(failed.is_error);
}

#[test]
fn tool_results_to_responses() {
    let ev = event();
    let mut result = ToolResult::text("line 1");
    result.content.push(serde_json::from_value(json!({"type": "text", "text": "line 2"})).unwrap());
    let r = result.to_response(&ev);
    assert_eq!((r.state(), r.body()), (None, "line 1\nline 2"));
    result.is_error = true;
    assert_eq!(result.to_response(&ev).state(), Some(ResponseState::Reprompt));
    let parsed: ToolResult = serde_json::from_value(json!({
        "toolCallId": "c1", "toolName": "search", "content": [{"type": "text", "text": "x"}], "isError": true
    }))
    .unwrap();
    assert_eq!(parsed.tool_call_id.as_deref(), Some("c1"));
    assert_eq!(ToolResult::from_response(&parsed.to_response(&ev)).joined_text(), "x");
}
