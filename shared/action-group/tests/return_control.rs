#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Return of control, checked against AWS's own model (Bedrock Agent Runtime): payloads
//! the model accepts are read into typed calls, and every result entry and session state
//! built from a tool's outcome is what the model accepts.

use aws_conformance::Model;
use bedrock_action_group::{
    ControlCall, Operation, ToolError, parse_return_control, session_state,
};
use proptest::prelude::*;
use serde_json::{Value, json};

fn runtime() -> &'static Model {
    Model::bedrock_agent_runtime()
}

fn payload() -> Value {
    json!({
        "invocationId": "inv-1",
        "invocationInputs": [
            {"functionInvocationInput": {
                "actionGroup": "forecast", "function": "get_forecast", "actionInvocationType": "RESULT",
                "agentId": "INLINE", "collaboratorName": "weather-helper",
                "parameters": [{"name": "city", "type": "string", "value": "Paris"},
                               {"name": "days", "type": "integer", "value": "3"}]
            }},
            {"apiInvocationInput": {
                "actionGroup": "calc", "apiPath": "/sum", "httpMethod": "POST",
                "parameters": [{"name": "round", "type": "boolean", "value": "true"}],
                "requestBody": {"content": {"application/json": {"properties": [
                    {"name": "values", "type": "array", "value": "[1, 2, 3]"}]}}}
            }}
        ]
    })
}

#[test]
fn a_payload_becomes_typed_calls_with_strictly_decoded_arguments() {
    let p = payload();
    runtime().assert("ReturnControlPayload", &p);
    let rc = parse_return_control(&p).unwrap();
    assert_eq!(rc.invocation_id, "inv-1");
    let [forecast, calc] = rc.calls.as_slice() else { panic!("{rc:?}") };
    assert_eq!(forecast.operation, Operation::Function("get_forecast".into()));
    assert_eq!(forecast.collaborator_name.as_deref(), Some("weather-helper"));
    let args = forecast.arguments().unwrap();
    assert_eq!(args.get("days"), Some(&json!(3)));
    assert_eq!(
        calc.operation,
        Operation::Api { api_path: "/sum".into(), http_method: "POST".into() }
    );
    assert_eq!(calc.arguments().unwrap().get("values"), Some(&json!([1, 2, 3])));

    let mut bad = p.clone();
    bad["invocationInputs"][0]["functionInvocationInput"]["parameters"][1]["value"] =
        json!("three");
    let rc = parse_return_control(&bad).unwrap();
    let err = rc.calls[0].arguments().unwrap_err();
    assert!(err.reprompt_text().contains("days"), "{}", err.reprompt_text());

    let mut malformed = p;
    malformed["invocationInputs"][0] =
        json!({"functionInvocationInput": {}, "apiInvocationInput": {}});
    let err = parse_return_control(&malformed).unwrap_err();
    assert_eq!(err.pointer, "/invocationInputs/0");
}

#[test]
fn results_and_the_session_state_are_what_aws_accepts() {
    let rc = parse_return_control(&payload()).unwrap();
    let (forecast, calc) = (&rc.calls[0], &rc.calls[1]);
    let ok = forecast.result(Ok::<_, ToolError>(json!({"city": "Paris", "high": 21})));
    let reprompt = forecast.result::<Value>(Err(ToolError::invalid("days", "must be 1 to 10")));
    let failure = calc.result::<Value>(Err(ToolError::failure("calculator offline")));
    for entry in [&ok, &reprompt, &failure] {
        runtime().assert("InvocationResultMember", entry.as_json());
    }
    let ok = ok.as_json();
    assert!(ok["functionResult"].get("responseState").is_none());
    assert_eq!(ok["functionResult"]["agentId"], "INLINE");
    assert_eq!(
        ok["functionResult"]["responseBody"]["TEXT"]["body"],
        r#"{"city":"Paris","high":21}"#
    );
    assert_eq!(reprompt.as_json()["functionResult"]["responseState"], "REPROMPT");
    assert!(
        reprompt.as_json()["functionResult"]["responseBody"]["TEXT"]["body"]
            .as_str()
            .unwrap()
            .contains("days")
    );
    assert_eq!(failure.as_json()["apiResult"]["responseState"], "FAILURE");
    assert_eq!(failure.as_json()["apiResult"]["httpStatusCode"], 500);

    let state = session_state(&rc.invocation_id, &[reprompt.clone(), failure.clone()]).unwrap();
    runtime().assert("InlineSessionState", &state);
    // The next turn of the session: the resolution's inlineAgent plus these members.
    let request = json!({
        "sessionId": "s-1", "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
        "instruction": "You answer questions about the weather, briefly and politely.",
        "inlineSessionState": state
    });
    runtime().assert("InvokeInlineAgentRequest", &request);
    assert_eq!(session_state("x", &[]), Err(0));
    assert_eq!(session_state("x", &vec![failure; 6]), Err(6));
}

fn call() -> impl Strategy<Value = ControlCall> {
    (
        "([a-zA-Z0-9][_-]?){1,20}",
        prop_oneof![
            "([a-zA-Z0-9][_-]?){1,20}".prop_map(Operation::Function),
            ("/[a-z]{1,8}", prop_oneof![Just("GET"), Just("POST")])
                .prop_map(|(p, m)| Operation::Api { api_path: p, http_method: m.into() }),
        ],
        prop::option::of("[A-Z0-9]{10}"),
    )
        .prop_map(|(action_group, operation, agent_id)| ControlCall {
            action_group,
            operation,
            agent_id,
            collaborator_name: None,
            parameters: Vec::new(),
        })
}

fn outcome() -> impl Strategy<Value = Result<Value, ToolError>> {
    prop_oneof![
        any::<String>().prop_map(|s| Ok(json!({"text": s}))),
        any::<i64>().prop_map(|n| Ok(json!(n))),
        ("[a-z]{1,8}", any::<String>()).prop_map(|(p, m)| Err(ToolError::invalid(&p, m))),
        any::<String>().prop_map(|m| Err(ToolError::failure(m))),
        any::<String>().prop_map(|m| Err(ToolError::reply(m))),
    ]
}

proptest! {
    #[test]
    fn every_result_entry_conforms(c in call(), o in outcome(), id in "[a-zA-Z0-9-]{1,36}") {
        let entry = c.result(o);
        runtime().assert("InvocationResultMember", entry.as_json());
        runtime().assert("InlineSessionState", &session_state(&id, &[entry]).unwrap());
    }
}
