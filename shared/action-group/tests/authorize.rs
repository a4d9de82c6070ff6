//! Authorizing returned calls before the runtime runs them: through the registry API's
//! `POST /tools/{toolId}/authorize` (the transport here is an in-process stand-in that
//! answers as the API's contract says, recording what it was sent); in process on the
//! compiled rules is registry-guard's tests/authorize.rs. Every result entry is checked
//! against AWS's Bedrock Agent Runtime model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;

use aws_conformance::Model;
use bedrock_action_group::return_control::{
    ApiAuthorizer, ApiTransport, AuthorizeError, authorize, authorize_request,
};
use bedrock_action_group::{ControlCall, parse_return_control};
use serde_json::{Value, json};

fn call(value: &str) -> ControlCall {
    let payload = json!({"invocationId": "inv-1", "invocationInputs": [{"functionInvocationInput": {
        "actionGroup": "convert_units", "function": "convert", "actionInvocationType": "RESULT",
        "parameters": [{"name": "value", "type": "number", "value": value},
                       {"name": "from", "type": "string", "value": "km"},
                       {"name": "to", "type": "string", "value": "m"}]}}]});
    parse_return_control(&payload).unwrap().calls.remove(0)
}

fn context() -> Value {
    json!({"user": {"userId": "u-42", "roles": ["agent"]}, "request": {"agentId": "support-bot"}})
}

/// `(responseState, body)` of a function result entry.
fn entry(result: &Value) -> (Option<&str>, &str) {
    let f = &result["functionResult"];
    (f["responseState"].as_str(), f["responseBody"]["TEXT"]["body"].as_str().unwrap())
}

/// Answers as the registry API would, recording each request.
struct Api {
    answer: (u16, Value),
    sent: Mutex<Vec<(String, Value)>>,
}

impl Api {
    fn answering(status: u16, body: Value) -> ApiAuthorizer<Api> {
        ApiAuthorizer::new(Api { answer: (status, body), sent: Mutex::default() })
    }
}

impl ApiTransport for Api {
    async fn post_json(&self, path: &str, body: &Value) -> Result<(u16, Value), AuthorizeError> {
        self.sent.lock().unwrap().push((path.to_owned(), body.clone()));
        Ok(self.answer.clone())
    }
}

/// A registry API that cannot be reached.
struct Unreachable;

impl ApiTransport for Unreachable {
    async fn post_json(&self, _: &str, _: &Value) -> Result<(u16, Value), AuthorizeError> {
        Err(AuthorizeError::transport("connection refused"))
    }
}

impl ApiTransport for &Api {
    async fn post_json(&self, path: &str, body: &Value) -> Result<(u16, Value), AuthorizeError> {
        (*self).post_json(path, body).await
    }
}

#[test]
fn the_request_follows_the_api_contract() {
    let body = authorize_request(&context(), &call("2.5")).unwrap();
    assert_eq!(
        body,
        json!({"context": context(), "call": {"function": "convert",
               "arguments": {"value": 2.5, "from": "km", "to": "m"}}})
    );
    assert!(authorize_request(&context(), &call("12abc")).is_err(), "strict conversion");
}

#[tokio::test]
async fn an_allowed_call_runs_and_a_denied_one_is_answered_for_it() {
    let transport = Api {
        answer: (200, json!({"effect": "allow", "ruleId": "allow-calls"})),
        sent: Mutex::default(),
    };
    let api = ApiAuthorizer::new(&transport).for_agent("support-bot");
    let allowed = authorize(&api, "convert_units@1.0.0", &context(), &call("5")).await.unwrap();
    assert_eq!(allowed.rule_id.as_deref(), Some("allow-calls"));
    let sent = transport.sent.lock().unwrap().clone();
    assert_eq!(sent[0].0, "/tools/convert_units@1.0.0/authorize");
    assert_eq!(sent[0].1["call"]["arguments"]["value"], 5.0);
    assert_eq!(sent[0].1["agentId"], "support-bot");

    let api = Api::answering(200, json!({"effect": "deny", "ruleId": "no-huge-values"}));
    let refused =
        authorize(&api, "convert_units@1.0.0", &context(), &call("2e9")).await.unwrap_err();
    Model::bedrock_agent_runtime().assert("InvocationResultMember", refused.result.as_json());
    assert_eq!(
        entry(refused.result.as_json()),
        (
            Some("REPROMPT"),
            "The call to `convert` is not permitted: denied by rule `no-huge-values`."
        )
    );
}

#[tokio::test]
async fn an_undecided_call_is_not_run() {
    for (status, answer, detail) in [
        (
            503,
            json!({"title": "Service Unavailable", "detail": "store down"}),
            "the registry answered 503: store down",
        ),
        (
            200,
            json!({"decision": "maybe"}),
            "the registry's answer has no effect `allow` or `deny`",
        ),
        (403, json!({"title": "Forbidden"}), "the registry answered 403: Forbidden"),
    ] {
        let api = Api::answering(status, answer.clone());
        let refused = authorize(&api, "t", &context(), &call("5")).await.unwrap_err();
        Model::bedrock_agent_runtime().assert("InvocationResultMember", refused.result.as_json());
        let (state, body) = entry(refused.result.as_json());
        assert_eq!(state, Some("FAILURE"), "{answer}");
        assert!(body.ends_with("could not be authorized right now."), "{body}");
        assert_eq!(refused.detail, detail);
    }
    // a transport that fails: its message is the detail
    let refused = authorize(&ApiAuthorizer::new(Unreachable), "t", &context(), &call("5")).await;
    let refused = refused.unwrap_err();
    assert_eq!(entry(refused.result.as_json()).0, Some("FAILURE"));
    assert_eq!(refused.detail, "connection refused");
    // arguments that do not convert never reach the API
    let transport = Api { answer: (200, json!({"effect": "allow"})), sent: Mutex::default() };
    let refused = authorize(&ApiAuthorizer::new(&transport), "t", &context(), &call("x")).await;
    assert!(refused.is_err());
    assert!(transport.sent.lock().unwrap().is_empty());
}
