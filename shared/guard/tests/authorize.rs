//! Authorizing returned calls in process on the example tool's compiled rules
//! ([`RuleSetAuthorizer`]): the access rules first, then the call rules, as the API decides.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bedrock_action_group::return_control::{Authorizer, authorize};
use bedrock_action_group::{ControlCall, parse_return_control};
use registry_guard::RuleSetAuthorizer;
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

#[tokio::test]
async fn in_process_on_the_compiled_rules() {
    let tool =
        serde_json::from_str(include_str!("../../../cli/example/convert-units.json")).unwrap();
    let local = RuleSetAuthorizer::new(tool).unwrap();
    let allowed = local.authorize("convert_units@1.0.0", &context(), &call("5")).await.unwrap();
    assert_eq!((allowed.allowed, allowed.rule_id.as_deref()), (true, Some("allow-calls")));
    let refused = authorize(&local, "convert_units@1.0.0", &context(), &call("2000000000"))
        .await
        .unwrap_err();
    assert_eq!(
        entry(refused.result.as_json()),
        (
            Some("REPROMPT"),
            "The call to `convert` is not permitted: Quantities beyond a billion are refused (rule `no-huge-values`)."
        )
    );
    // the tool's access rules first, as the API decides
    let mut tool: registry_core::ToolDefinition =
        serde_json::from_str(include_str!("../../../cli/example/convert-units.json")).unwrap();
    tool.access_rules = Some(vec![
        serde_json::from_value(json!({"id": "staff-only", "effect": "allow",
            "condition": "'staff' in user.roles"}))
        .unwrap(),
    ]);
    let staff_only = RuleSetAuthorizer::new(tool).unwrap();
    let refused =
        authorize(&staff_only, "convert_units@1.0.0", &context(), &call("5")).await.unwrap_err();
    assert_eq!(
        entry(refused.result.as_json()).1,
        "The call to `convert` is not permitted: the tool is not granted to this principal: no rule allows it."
    );
    let bad_context = json!({"user": {"nickname": "x"}});
    let refused = authorize(&local, "t", &bad_context, &call("5")).await.unwrap_err();
    assert_eq!(entry(refused.result.as_json()).0, Some("FAILURE"));
}
