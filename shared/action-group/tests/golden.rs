//! Golden tests against the example events and responses in AWS's documentation
//! (agents-lambda: input event formats, response formats, example functions) and the
//! AWS-authored fixtures of the `aws_lambda_events` crate.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bedrock_action_group::{
    ActionGroupEvent, ActionGroupResponse, ResponseState, ToolError, handle, parse_event,
};
use serde_json::{Value, json};

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/aws/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn documented_events_read_alike_through_parse_event_and_serde() {
    for name in [
        "function-details-event",
        "api-schema-event",
        "lambda-events-without-request-body",
        "lambda-events-without-parameters",
    ] {
        let raw = fixture(name);
        let parsed = parse_event(&raw).unwrap();
        let read: ActionGroupEvent = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(parsed, read, "{name}");
    }
}

#[test]
fn documented_events_round_trip_field_for_field() {
    for name in ["function-details-event", "api-schema-event"] {
        let raw = fixture(name);
        let event = parse_event(&raw).unwrap();
        assert_eq!(serde_json::to_value(&event).unwrap(), raw, "{name}");
    }
}

#[test]
fn documented_forms_are_told_apart() {
    assert!(matches!(
        parse_event(&fixture("function-details-event")).unwrap(),
        ActionGroupEvent::Function(_)
    ));
    let api = parse_event(&fixture("api-schema-event")).unwrap();
    let ActionGroupEvent::Api(api) = api else { panic!("not the API form") };
    assert_eq!(api.request_body.unwrap().content["application/json"].properties.len(), 1);
}

#[test]
fn builder_reproduces_the_documented_example_function_responses() {
    for (event, response) in [
        ("function-details-event", "function-details-example-response"),
        ("api-schema-event", "api-schema-example-response"),
    ] {
        let event = parse_event(&fixture(event)).unwrap();
        let built = event.respond().text("sample response").build();
        assert_eq!(serde_json::to_value(&built).unwrap(), fixture(response), "{response}");
    }
}

#[test]
fn documented_response_formats_round_trip_field_for_field() {
    for (name, state) in [
        ("function-details-response-format", Some(ResponseState::Reprompt)),
        ("api-schema-response-format", None),
    ] {
        let raw = fixture(name);
        let response: ActionGroupResponse = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(response.state(), state, "{name}");
        assert_eq!(response.body(), "JSON-formatted string");
        assert_eq!(response.knowledge_bases_configuration.len(), 1);
        assert_eq!(serde_json::to_value(&response).unwrap(), raw, "{name}");
    }
}

#[test]
fn handler_over_documented_function_event() {
    let response =
        handle(&fixture("function-details-event"), |args: Value| Ok::<_, ToolError>(args));
    let expected = json!({
        "messageVersion": "1.0",
        "response": {
            "actionGroup": "string",
            "function": "string",
            "functionResponse": {"responseBody": {"TEXT": {"body": "{\"string\":\"string\"}"}}}
        },
        "sessionAttributes": {"string": "string"},
        "promptSessionAttributes": {"string": "string"}
    });
    assert_eq!(serde_json::to_value(&response).unwrap(), expected);
}

#[test]
fn handler_over_documented_api_events_merges_parameters_and_body() {
    let response = handle(&fixture("lambda-events-without-request-body"), |args: Value| {
        Ok::<_, ToolError>(args)
    });
    assert_eq!(response.body(), r#"{"param1":"value1"}"#);
    let response = handle(&fixture("lambda-events-without-parameters"), |args: Value| {
        Ok::<_, ToolError>(args)
    });
    let expected = json!({
        "messageVersion": "1.0",
        "response": {
            "actionGroup": "ActionGroup",
            "apiPath": "/api/path",
            "httpMethod": "POST",
            "httpStatusCode": 200,
            "responseBody": {"application/json": {"body": "{\"prop1\":\"value1\"}"}}
        },
        "sessionAttributes": {"attr1": "value1"},
        "promptSessionAttributes": {"promptAttr1": "value1"}
    });
    assert_eq!(serde_json::to_value(&response).unwrap(), expected);
}
