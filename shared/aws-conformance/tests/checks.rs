//! The checker itself: it must refuse what AWS refuses, or the conformance tests prove
//! nothing.

use aws_conformance::Model;
use serde_json::json;

fn runtime() -> &'static Model {
    Model::bedrock_agent_runtime()
}

fn minimal() -> serde_json::Value {
    json!({
        "sessionId": "s-1",
        "inputText": "hello",
        "foundationModel": "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "instruction": "You answer questions about the weather, briefly and politely."
    })
}

#[test]
fn a_minimal_inline_agent_request_passes() {
    runtime().assert("InvokeInlineAgentRequest", &minimal());
}

#[test]
fn missing_required_and_unknown_members_are_named() {
    let mut v = minimal();
    v.as_object_mut().map(|o| o.remove("foundationModel"));
    v["agentId"] = json!("weather");
    let errors = runtime().check("InvokeInlineAgentRequest", &v).unwrap_err();
    assert!(errors.iter().any(|e| e.contains("requires `foundationModel`")), "{errors:?}");
    assert!(errors.iter().any(|e| e.starts_with("/agentId:")), "{errors:?}");
}

#[test]
fn lengths_enums_ranges_and_patterns_are_checked() {
    let mut v = minimal();
    v["instruction"] = json!("Be brief.");
    v["agentCollaboration"] = json!("supervisor");
    v["idleSessionTTLInSeconds"] = json!(30);
    v["foundationModel"] = json!("my model!");
    let errors = runtime().check("InvokeInlineAgentRequest", &v).unwrap_err();
    for at in
        ["/instruction:", "/agentCollaboration:", "/idleSessionTTLInSeconds:", "/foundationModel:"]
    {
        assert!(errors.iter().any(|e| e.starts_with(at)), "{at} in {errors:?}");
    }
}

#[test]
fn patterns_match_the_whole_value() {
    let mut v = minimal();
    // The action-group name pattern matches a prefix of this value but not all of it.
    v["actionGroups"] = json!([{"actionGroupName": "weather tools"}]);
    let errors = runtime().check("InvokeInlineAgentRequest", &v).unwrap_err();
    assert!(errors.iter().any(|e| e.starts_with("/actionGroups/0/actionGroupName:")), "{errors:?}");
}

#[test]
fn unions_take_exactly_one_member() {
    let filter = json!({"equals": {"key": "a", "value": 1}, "notEquals": {"key": "b", "value": 2}});
    let errors = runtime().check("RetrievalFilter", &filter).unwrap_err();
    assert!(errors.iter().any(|e| e.contains("union")), "{errors:?}");
    runtime().assert("RetrievalFilter", &json!({"equals": {"key": "a", "value": 1}}));
}

#[test]
fn every_pattern_of_both_models_compiles() {
    for (name, model) in [("bedrock-agent", Model::bedrock_agent()), ("runtime", runtime())] {
        // A string shape's pattern is compiled when a string is checked against it;
        // checking "" against every string shape compiles them all.
        for shape in model.shape_names() {
            if let Err(errors) = model.check(&shape, &json!("")) {
                assert!(
                    !errors.iter().any(|e| e.contains("unusable")),
                    "{name} {shape}: {errors:?}"
                );
            }
        }
    }
}
