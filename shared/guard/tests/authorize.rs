//! Authorizing returned calls in process on the example tool's compiled rules
//! ([`RuleSetAuthorizer`]): the access rules first, then the call rules, as the API decides.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bedrock_action_group::return_control::{Authorizer, Operation, authorize};
use bedrock_action_group::{ControlCall, Parameter};
use registry_guard::RuleSetAuthorizer;
use serde_json::{Value, json};

/// `convert` of `convert_units` from `value` km to m, as a runtime got it back.
fn call(value: &str) -> ControlCall {
    let parameter = |name: &str, kind: &str, value: &str| Parameter {
        name: name.to_owned(),
        kind: kind.to_owned(),
        value: value.to_owned(),
    };
    ControlCall {
        action_group: "convert_units".to_owned(),
        operation: Operation::Function("convert".to_owned()),
        agent_id: None,
        collaborator_name: None,
        parameters: vec![
            parameter("value", "number", value),
            parameter("from", "string", "km"),
            parameter("to", "string", "m"),
        ],
    }
}

/// A signed-in agent user, as the runtime resolved the agent for.
fn context() -> Value {
    json!({"request": {"agentId": "support-bot"}, "user": {"roles": ["agent"], "userId": "u-42"}})
}

/// The state and text the model would read of a refused call's result entry.
fn entry(result: &Value) -> (Option<&str>, &str) {
    let answer = &result["functionResult"];
    let text = answer["responseBody"]["TEXT"]["body"].as_str().unwrap();
    (answer["responseState"].as_str(), text)
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

#[tokio::test]
async fn without_a_store_a_counted_tool_is_refused_not_decided_as_uncounted() {
    let mut tool: registry_core::ToolDefinition =
        serde_json::from_str(include_str!("../../../cli/example/convert-units.json")).unwrap();
    tool.rate_limit = Some(
        serde_json::from_value(json!({"calls": 100, "perSeconds": 60, "key": "principal"}))
            .unwrap(),
    );
    let local = RuleSetAuthorizer::new(tool).unwrap();
    let decided = local.decide_call(&context(), &call("5")).await.unwrap();
    assert_eq!(decided.stage, registry_policy::Stage::Limit);
    assert_eq!(decided.reason, registry_policy::Reason::BudgetsUnavailable);
    assert!(!decided.is_allowed());
    let refused =
        authorize(&local, "convert_units@1.0.0", &context(), &call("5")).await.unwrap_err();
    assert_eq!(entry(refused.result.as_json()).0, Some("FAILURE"));
    assert_eq!(refused.detail, "this authorizer keeps no session counts");
}
