#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Property: whatever write-time validation accepts, AWS accepts once resolved. Agents
//! and tools are generated with values on both sides of every AWS limit; each one the
//! registry accepts must resolve to an `InvokeInlineAgentRequest`, and each tool's
//! action group and Bedrock export must satisfy AWS's models.

use aws_conformance::Model;
use proptest::prelude::*;
use registry_core::resolve::{ActionGroup, DefinitionMap, Snapshot};
use registry_core::{AgentDefinition, RequestContext, ToolDefinition, validate};
use serde_json::{Value, json};

fn text(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        1 => "[a-zA-Z ]{0,3}".prop_map(|s| s),
        1 => (0..=max).prop_map(|n| "a".repeat(n)),
        12 => "[a-zA-Z0-9][a-zA-Z0-9 .,!é]{0,59}",
    ]
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => "([a-zA-Z0-9][_-]?){1,12}",
        1 => "[a-zA-Z0-9_. -]{1,12}",
        1 => Just("a".repeat(101)),
    ]
}

fn parameter() -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            Just("string"),
            Just("number"),
            Just("integer"),
            Just("boolean"),
            Just("array")
        ],
        text(520),
        any::<bool>(),
    )
        .prop_map(|(t, d, r)| {
            let mut p = json!({"type": t, "description": d, "required": r});
            if t == "array" {
                p["items"] = json!({"type": "string"});
            }
            p
        })
}

fn tool() -> impl Strategy<Value = Value> {
    (
        name(),
        text(220),
        prop::collection::vec(
            (name(), text(1_250), prop::collection::btree_map(name(), parameter(), 0..3)),
            1..3,
        ),
        prop_oneof![
            4 => Just("arn:aws:lambda:us-east-1:123456789012:function:weather"),
            2 => Just("arn:aws:lambda:us-east-1:123456789012:function:weather:$LATEST"),
            1 => Just("arn:aws-iso:lambda:us-iso-east-1:123456789012:function:f"),
            2 => Just("arn:aws:lambda:us-east-1:123456789012:function:a.b"),
        ],
    )
        .prop_map(|(name, description, functions, arn)| {
            let functions: Vec<Value> = functions
                .into_iter()
                .map(|(n, d, p)| json!({"name": n, "description": d, "parameters": p}))
                .collect();
            json!({
                "toolId": "t@1", "executionType": "lambda", "name": name, "displayName": "T",
                "description": description, "supportedAgentFrameworks": ["bedrock"],
                "lambdaArn": arn, "functionSchema": functions
            })
        })
}

fn agent() -> impl Strategy<Value = Value> {
    (
        (30usize..4_100).prop_map(|n| "x".repeat(n)),
        prop_oneof![
            Just(Value::Null),
            Just(json!("anthropic.claude-3-5-sonnet-20240620-v1:0")),
            Just(json!("us.anthropic.claude-3-5-haiku-20241022-v1:0")),
            Just(json!("my model")),
            Just(json!("arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-pro-v1:0")),
        ],
        prop::option::of(0u32..4_000),
        prop::option::of(prop_oneof![Just("1"), Just("DRAFT"), Just("0"), Just("123456789")]),
        prop::option::of(prop_oneof![Just("KB12345678"), Just("kb"), Just("KB123456789")]),
        prop::option::of(prop_oneof![Just("SUPERVISOR"), Just("SUPERVISOR_ROUTER"), Just("DISABLED")]),
        prop::option::of((0.0f64..1.5, 0u32..600, 0usize..6)),
    )
        .prop_map(|(prompt, model, ttl, guardrail, kb, collaboration, inference)| {
            let mut a = json!({
                "agentId": "boss", "basePrompt": prompt, "toolIds": ["t@1"],
                "collaborators": [{"agentId": "helper", "instruction": "Ask it.", "historyRelay": "TO_AGENT"}]
            });
            if !model.is_null() {
                a["foundationModel"] = model;
            }
            if let Some(ttl) = ttl {
                a["idleSessionTTLInSeconds"] = json!(ttl);
            }
            if let Some(v) = guardrail {
                a["guardrailConfiguration"] = json!({"guardrailIdentifier": "gr1", "guardrailVersion": v});
            }
            if let Some(id) = kb {
                a["knowledgeBases"] = json!([{"id": id, "description": "Docs", "supportedAgentFrameworks": ["bedrock"],
                    "filter": {"andAll": [{"equals": {"key": "k", "value": 1}}, {"startsWith": {"key": "p", "value": "x"}}]}}]);
            }
            if let Some(c) = collaboration {
                a["agentCollaboration"] = json!(c);
            }
            if let Some((temperature, top_k, stops)) = inference {
                let stops: Vec<String> = (0..stops).map(|i| format!("s{i}")).collect();
                a["promptOverrideConfiguration"] = json!({"promptConfigurations": [{"promptType": "ORCHESTRATION",
                    "inferenceConfiguration": {"temperature": temperature, "topK": top_k, "stopSequences": stops}}]});
            }
            a
        })
}

fn helper() -> AgentDefinition {
    serde_json::from_value(json!({
        "agentId": "helper", "version": 1,
        "basePrompt": "You help the boss with anything about the weather, briefly.",
        "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0", "toolIds": ["t@1"]
    }))
    .unwrap()
}

fn a_valid_tool() -> ToolDefinition {
    serde_json::from_value(json!({
        "toolId": "t@1", "version": 1, "executionType": "lambda", "name": "weather", "displayName": "W",
        "description": "Weather.", "supportedAgentFrameworks": ["bedrock"],
        "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:weather",
        "functionSchema": [{"name": "get", "description": "Get it.", "parameters": {"city": {"type": "string", "description": "City", "required": true}}}]
    }))
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_valid_tool_is_a_valid_action_group(value in tool()) {
        let Ok(def) = serde_json::from_value::<ToolDefinition>(value) else { return Ok(()) };
        if validate::tool(&def).is_err() {
            return Ok(());
        }
        let group = ActionGroup::of(&def).unwrap();
        let group = serde_json::to_value(&group).unwrap();
        Model::bedrock_agent_runtime().assert("AgentActionGroup", &group);
        Model::bedrock_agent().assert("FunctionSchema", &group["functionSchema"]);
    }

    #[test]
    fn a_valid_agent_resolves_to_a_valid_request(value in agent()) {
        let Ok(mut def) = serde_json::from_value::<AgentDefinition>(value) else { return Ok(()) };
        if validate::agent(&def).is_err() {
            return Ok(());
        }
        def.server.version = Some(1);
        let mut defs = DefinitionMap::default();
        defs.insert_agent(def);
        defs.insert_agent(helper());
        defs.insert_tool(a_valid_tool());
        let snapshot = Snapshot::new(defs.agents.values().cloned(), defs.tools.values().cloned());
        let ctx: RequestContext = serde_json::from_value(json!({"user": {"userId": "u"}})).unwrap();
        let r = snapshot.resolve("boss", &ctx).unwrap();
        let mut request = serde_json::to_value(&r.inline_agent).unwrap();
        request["sessionId"] = json!("s-1");
        request["inputText"] = json!("hello");
        Model::bedrock_agent_runtime().assert("InvokeInlineAgentRequest", &request);
    }
}

/// The generators reach both sides of the limits: a fair share of what they produce is
/// accepted (so the properties above test something) and a fair share refused.
#[test]
fn the_generators_produce_both_accepted_and_refused_definitions() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut tools_ok, mut agents_ok) = (0, 0);
    for _ in 0..200 {
        let t = tool().new_tree(&mut runner).unwrap().current();
        let t: ToolDefinition = serde_json::from_value(t).unwrap();
        tools_ok += usize::from(validate::tool(&t).is_ok());
        let a = agent().new_tree(&mut runner).unwrap().current();
        let a: AgentDefinition = serde_json::from_value(a).unwrap();
        agents_ok += usize::from(validate::agent(&a).is_ok());
    }
    assert!((20..=180).contains(&tools_ok), "{tools_ok} of 200 tools accepted");
    assert!((20..=180).contains(&agents_ok), "{agents_ok} of 200 agents accepted");
}
