#![allow(clippy::unwrap_used, clippy::expect_used)]
//! One rejecting case per validation rule, each asserting the JSON Pointer it reports.

use registry_core::{AgentDefinition, ToolDefinition, validate};
use serde_json::{Value, json};

fn agent() -> Value {
    json!({"agentId": "weather-agent", "basePrompt": "You answer weather questions.", "toolIds": ["weather-basic@1"]})
}

fn tool() -> Value {
    json!({
        "toolId": "weather-basic@1", "executionType": "lambda", "name": "weather",
        "displayName": "Weather", "description": "Current weather for a city.",
        "supportedAgentFrameworks": ["bedrock"],
        "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:weather",
        "functionSchema": [{"name": "get_weather", "description": "Weather for a city",
            "parameters": {"city": {"type": "string", "description": "City", "required": true}}}]
    })
}

fn merged(base: Value, patch: Value) -> Value {
    let mut base = base;
    for (k, v) in patch.as_object().unwrap() {
        if v.is_null() {
            base.as_object_mut().unwrap().remove(k);
        } else {
            base[k] = v.clone();
        }
    }
    base
}

fn agent_paths(patch: Value) -> Vec<String> {
    let def: AgentDefinition = serde_json::from_value(merged(agent(), patch)).unwrap();
    validate::agent(&def).err().unwrap_or_default().into_iter().map(|v| v.path).collect()
}

fn tool_paths(patch: Value) -> Vec<String> {
    let def: ToolDefinition = serde_json::from_value(merged(tool(), patch)).unwrap();
    validate::tool(&def).err().unwrap_or_default().into_iter().map(|v| v.path).collect()
}

#[test]
fn valid_examples_pass() {
    assert!(agent_paths(json!({})).is_empty());
    assert!(tool_paths(json!({})).is_empty());
}

#[test]
fn agent_rules_report_their_paths() {
    let cases: Vec<(Value, &str)> = vec![
        (json!({"agentId": "bad id"}), "/agentId"),
        (json!({"basePrompt": " "}), "/basePrompt"),
        (json!({"toolIds": ["ok", "not ok"]}), "/toolIds/1"),
        (json!({"toolIds": ["a", "a"]}), "/toolIds/1"),
        (json!({"acessRules": []}), "/acessRules"),
        (json!({"runtimeAdapter": "arn:aws:s3:::b"}), "/runtimeAdapter"),
        (json!({"foundationModel": ""}), "/foundationModel"),
        (
            json!({"collaborators": [{"agentId": "weather-agent", "instruction": "x", "historyRelay": "TO_AGENT"}]}),
            "/collaborators/0/agentId",
        ),
        (
            json!({"collaborators": [{"agentId": "b", "instruction": "", "historyRelay": "TO_AGENT"}]}),
            "/collaborators/0/instruction",
        ),
        (
            json!({"collaborators": [{"agentId": "b", "instruction": "x", "historyRelay": "TO_AGENT", "extra": 1}]}),
            "/collaborators/0/extra",
        ),
        (
            json!({"knowledgeBases": [{"id": "KB1", "description": "d", "supportedAgentFrameworks": []}]}),
            "/knowledgeBases/0/supportedAgentFrameworks",
        ),
        (
            json!({"knowledgeBases": [{"id": "KB1", "description": "d", "supportedAgentFrameworks": ["bedrock"], "numberOfResults": 0}]}),
            "/knowledgeBases/0/numberOfResults",
        ),
        (
            json!({"rolloutPolicy": {"regionRestrictions": ["mars-1"]}}),
            "/rolloutPolicy/regionRestrictions/0",
        ),
        (json!({"rolloutPolicy": {"percentage": 100.5}}), "/rolloutPolicy/percentage"),
        (json!({"rolloutPolicy": {"percentage": 12.345}}), "/rolloutPolicy/percentage"),
        (
            json!({"rolloutPolicy": {"toolOverrides": {"a/b": "c"}}}),
            "/rolloutPolicy/toolOverrides/a~1b",
        ),
        (json!({"rolloutPolicy": {"toolOverrides": {"a": "a"}}}), "/rolloutPolicy/toolOverrides/a"),
        (json!({"rolloutPolicy": {"betaAcounts": []}}), "/rolloutPolicy/betaAcounts"),
        (
            json!({"lifecycle": {"status": "deprecated", "deprecationDate": "soon"}}),
            "/lifecycle/deprecationDate",
        ),
        (json!({"tags": {"": "x"}}), "/tags/"),
        (json!({"testType": "real"}), "/testType"),
        (
            json!({"accessRules": [{"effect": "allow", "condition": "user.userType = 'x'"}]}),
            "/accessRules/0/condition",
        ),
    ];
    for (patch, path) in cases {
        let got = agent_paths(patch.clone());
        assert!(got.iter().any(|p| p == path), "{patch} -> {got:?}, expected {path}");
    }
}

#[test]
fn tool_rules_report_their_paths() {
    let cases: Vec<(Value, &str)> = vec![
        (json!({"toolId": "no spaces"}), "/toolId"),
        (json!({"name": "has space"}), "/name"),
        (json!({"displayName": ""}), "/displayName"),
        (json!({"description": "x".repeat(501)}), "/description"),
        (json!({"description": ""}), "/description"),
        (json!({"executionTimeout": 0}), "/executionTimeout"),
        (json!({"executionTimeout": 901}), "/executionTimeout"),
        (json!({"supportedAgentFrameworks": []}), "/supportedAgentFrameworks"),
        (json!({"lambdaArn": "arn:nope"}), "/lambdaArn"),
        (json!({"lambdaArn": null}), "/lambdaArn"),
        (json!({"code": "x"}), "/code"),
        (json!({"executionType": "mcp", "lambdaArn": null, "url": "http://example.com"}), "/url"),
        (json!({"executionType": "mcp", "lambdaArn": null}), "/url"),
        (
            json!({"executionType": "mcp", "lambdaArn": null, "url": "https://x.example", "auth": {"clientId": "c", "tokenUrl": "https://t.example"}}),
            "/auth/clientSecret",
        ),
        (
            json!({"executionType": "mcp", "lambdaArn": null, "url": "https://x.example", "auth": {"clientId": "c", "clientSecret": "s", "tokenUrl": "ftp://t"}}),
            "/auth/tokenUrl",
        ),
        (
            json!({"executionType": "inline", "lambdaArn": null, "code": "x".repeat(64 * 1024 + 1)}),
            "/code",
        ),
        (json!({"executionType": "inline", "lambdaArn": null}), "/code"),
        (json!({"functionSchema": null}), "/functionSchema"),
        (
            json!({"accessRules": [{"effect": "allow", "condition": "nobody.knows"}]}),
            "/accessRules/0/condition",
        ),
        (json!({"lifecycle": {"status": "retired", "note": 1}}), "/lifecycle/note"),
        (json!({"descripton": "typo"}), "/descripton"),
    ];
    for (patch, path) in cases {
        let got = tool_paths(patch.clone());
        assert!(got.iter().any(|p| p == path), "{patch} -> {got:?}, expected {path}");
    }
}

#[test]
fn every_violation_is_listed_at_once() {
    let got =
        tool_paths(json!({"name": "a b", "description": "", "executionTimeout": 0, "typo": 1}));
    for path in ["/name", "/description", "/executionTimeout", "/typo"] {
        assert!(got.iter().any(|p| p == path), "{got:?} lacks {path}");
    }
}

/// Bedrock's quota of collaborators per supervisor: more is refused on write.
#[test]
fn at_most_ten_collaborators() {
    let list = |n: usize| -> Value {
        (0..n)
            .map(|i| json!({"agentId": format!("c-{i}"), "instruction": "Ask it.", "historyRelay": "TO_COLLABORATOR"}))
            .collect()
    };
    assert!(
        !agent_paths(json!({"collaborators": list(10)})).contains(&"/collaborators".to_owned())
    );
    assert_eq!(agent_paths(json!({"collaborators": list(11)})), ["/collaborators"]);
}
