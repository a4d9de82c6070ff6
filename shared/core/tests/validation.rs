#![allow(clippy::unwrap_used, clippy::expect_used)]
//! One rejecting case per validation rule, each asserting the JSON Pointer it reports.

use registry_core::{AgentDefinition, ToolDefinition, validate};
use serde_json::{Value, json};

fn agent() -> Value {
    json!({
        "agentId": "weather-agent",
        "basePrompt": "You answer weather questions for travellers, briefly and politely.",
        "foundationModel": "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "toolIds": ["weather-basic@1"]
    })
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

fn agent_errors(patch: Value) -> Vec<(String, String)> {
    let def: AgentDefinition = serde_json::from_value(merged(agent(), patch)).unwrap();
    validate::agent(&def)
        .err()
        .unwrap_or_default()
        .into_iter()
        .map(|v| (v.path, v.message))
        .collect()
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
        (json!({"toolIds": ["weather@^one"]}), "/toolIds/0"),
        (json!({"toolIds": ["weather@1.0.0+build"]}), "/toolIds/0"),
        (
            json!({"rolloutPolicy": {"toolOverrides": {"weather@^1": "weather@>=x"}}}),
            "/rolloutPolicy/toolOverrides/weather@^1",
        ),
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

/// Every list of an agent is bounded (Bedrock's quota where it has one), and refused
/// with its pointer and the limit; at the limit it is accepted.
#[test]
fn every_agent_list_is_bounded_with_its_pointer_and_limit() {
    let kb = |i: usize| json!({"id": format!("KB{i:08}"), "description": "d", "supportedAgentFrameworks": ["bedrock"]});
    let equals = json!({"equals": {"key": "k", "value": 1}});
    let kb_with_filter = |n: usize| {
        let mut k = kb(1);
        k["filter"] = json!({"andAll": vec![equals.clone(); n]});
        json!([k])
    };
    let collaborator = |i: usize| json!({"agentId": format!("c{i}"), "instruction": "x", "historyRelay": "TO_AGENT"});
    let cases = [
        (
            json!({"knowledgeBases": (0..1_000).map(kb).collect::<Vec<_>>()}),
            "/knowledgeBases",
            "at most 2 items",
        ),
        (
            json!({"knowledgeBases": (0..3).map(kb).collect::<Vec<_>>()}),
            "/knowledgeBases",
            "at most 2 items",
        ),
        (
            json!({"knowledgeBases": kb_with_filter(17)}),
            "/knowledgeBases/0/filter/andAll",
            "at most 16 items",
        ),
        (
            json!({"knowledgeBases": [{"id": "KB00000001", "description": "d", "supportedAgentFrameworks": ["bedrock", "bedrock"]}]}),
            "/knowledgeBases/0/supportedAgentFrameworks/1",
            "duplicate",
        ),
        (
            json!({"collaborators": (0..11).map(collaborator).collect::<Vec<_>>()}),
            "/collaborators",
            "at most 10",
        ),
        (
            json!({"toolIds": (0..33).map(|i| format!("t{i}")).collect::<Vec<_>>()}),
            "/toolIds",
            "at most 32",
        ),
        (
            json!({"rolloutPolicy": {"betaAccounts": vec!["a"; 1_001]}}),
            "/rolloutPolicy/betaAccounts",
            "at most 1000 items",
        ),
        (
            json!({"rolloutPolicy": {"regionRestrictions": vec!["us-east-1"; 65]}}),
            "/rolloutPolicy/regionRestrictions",
            "at most 64 items",
        ),
        (
            json!({"rolloutPolicy": {"toolOverrides": (0..33).map(|i| (format!("o{i}"), json!(format!("n{i}")))).collect::<serde_json::Map<_, _>>()}}),
            "/rolloutPolicy/toolOverrides",
            "at most 32 items",
        ),
        (
            json!({"tags": (0..17).map(|i| (format!("k{i}"), json!("v"))).collect::<serde_json::Map<_, _>>()}),
            "/tags",
            "at most 16",
        ),
    ];
    for (patch, path, limit) in cases {
        let errors = agent_errors(patch.clone());
        assert!(
            errors.iter().any(|(p, m)| p == path && m.contains(limit)),
            "{path}: {errors:?}, expected {limit}"
        );
    }
    for ok in [
        json!({"knowledgeBases": (0..2).map(kb).collect::<Vec<_>>()}),
        json!({"knowledgeBases": kb_with_filter(16)}),
    ] {
        assert_eq!(agent_errors(ok.clone()), vec![], "{ok}");
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

/// Ranges are accepted wherever a tool is named, in Cargo's requirement syntax.
#[test]
fn tool_ranges_are_accepted() {
    for range in ["weather@^1.2", "weather@~1.4", "weather@1", "weather@>=1.2, <2", "weather@*"] {
        assert_eq!(agent_paths(json!({"toolIds": [range]})), Vec::<String>::new(), "{range}");
    }
    let overrides =
        json!({"rolloutPolicy": {"toolOverrides": {"weather@^1": "weather@^2.0.0-beta"}}});
    assert_eq!(agent_paths(overrides), Vec::<String>::new());
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

/// What AWS would refuse is refused on write, at its path, naming AWS's constraint.
#[test]
fn aws_constraints_are_enforced_and_named() {
    let long = "x".repeat(201);
    let cases: Vec<(Value, &str, &str)> = vec![
        (json!({"basePrompt": "Be brief."}), "/basePrompt", "AWS `Instruction`"),
        (json!({"basePrompt": "x".repeat(4_001)}), "/basePrompt", "40 to 4000"),
        (json!({"foundationModel": null}), "/foundationModel", "is required"),
        (json!({"foundationModel": "my model!"}), "/foundationModel", "ModelIdentifier"),
        (json!({"description": long}), "/description", "AWS `Description`"),
        (
            json!({"guardrailConfiguration": {"guardrailIdentifier": "gr1", "guardrailVersion": "0"}}),
            "/guardrailConfiguration/guardrailVersion",
            "GuardrailVersion",
        ),
        (json!({"idleSessionTTLInSeconds": 30}), "/idleSessionTTLInSeconds", "SessionTTL"),
        (
            json!({"customerEncryptionKeyArn": "alias/mine"}),
            "/customerEncryptionKeyArn",
            "KmsKeyArn",
        ),
        (
            json!({"runtimeAdapter": "arn:aws-iso:lambda:us-iso-east-1:123456789012:function:f"}),
            "/runtimeAdapter",
            "LambdaResourceArn",
        ),
        (json!({"tags": {"team!": "x"}}), "/tags/team!", "TagKey"),
        (
            json!({"knowledgeBases": [{"id": "kb-weather", "description": "Docs", "supportedAgentFrameworks": ["bedrock"]}]}),
            "/knowledgeBases/0/id",
            "KnowledgeBaseId",
        ),
        (
            json!({"knowledgeBases": [{"id": "KB12345678", "description": "x".repeat(201), "supportedAgentFrameworks": ["bedrock"]}]}),
            "/knowledgeBases/0/description",
            "ResourceDescription",
        ),
        (
            json!({"knowledgeBases": [{"id": "KB12345678", "description": "Docs", "supportedAgentFrameworks": ["bedrock"],
                   "filter": {"andAll": [{"equals": {"key": "a", "value": 1}}]}}]}),
            "/knowledgeBases/0/filter/andAll",
            "RetrievalFilterList",
        ),
        (
            json!({"promptOverrideConfiguration": {"promptConfigurations": [{"inferenceConfiguration": {"temperature": 2.0}}]}}),
            "/promptOverrideConfiguration/promptConfigurations/0/inferenceConfiguration/temperature",
            "Temperature",
        ),
        (
            json!({"collaborators": [{"agentId": "c", "instruction": "Ask it.", "historyRelay": "TO_AGENT"}],
                   "agentCollaboration": "DISABLED"}),
            "/agentCollaboration",
            "SUPERVISOR",
        ),
        (
            json!({"collaborators": [{"agentId": "c", "instruction": "Ask it.", "historyRelay": "TO_AGENT",
                   "agentAliasArn": "arn:aws:bedrock:us-east-1:123456789012:agent/ABC"}]}),
            "/collaborators/0/agentAliasArn",
            "AgentAliasArn",
        ),
        (json!({"orchestrationType": "CUSTOM_ORCHESTRATION"}), "/customOrchestration", "required"),
    ];
    for (patch, path, words) in cases {
        let def: AgentDefinition = serde_json::from_value(merged(agent(), patch.clone())).unwrap();
        let violations = validate::agent(&def).err().unwrap_or_default();
        let hit = violations.iter().find(|v| v.path == path);
        assert!(
            hit.is_some_and(|v| v.message.contains(words)),
            "{patch}: expected {path} with {words:?}, got {violations:?}"
        );
    }
    // An action group's description is at most 200 characters (AWS `ResourceDescription`).
    assert_eq!(tool_paths(json!({"description": "x".repeat(201)})), ["/description"]);
}

/// AWS's own names and values are accepted: collaboration modes, a guardrail, a session
/// time-out, prompt overrides, retrieval settings, an alias collaborator.
#[test]
fn agents_written_with_aws_values_are_accepted() {
    let patch = json!({
        "description": "Answers weather questions.",
        "agentCollaboration": "SUPERVISOR_ROUTER",
        "collaborators": [{"agentId": "forecaster", "instruction": "Ask it for forecasts.", "historyRelay": "TO_COLLABORATOR",
                           "agentAliasArn": "arn:aws:bedrock:us-east-1:123456789012:agent-alias/AGENT12345/ALIAS12345"}],
        "guardrailConfiguration": {"guardrailIdentifier": "gr1abc", "guardrailVersion": "DRAFT"},
        "idleSessionTTLInSeconds": 900,
        "customerEncryptionKeyArn": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
        "orchestrationType": "DEFAULT",
        "bedrockModelConfigurations": {"performanceConfig": {"latency": "optimized"}},
        "promptOverrideConfiguration": {"promptConfigurations": [{
            "promptType": "ORCHESTRATION", "promptCreationMode": "OVERRIDDEN", "promptState": "ENABLED",
            "basePromptTemplate": "{\"system\": \"$instruction$\"}",
            "inferenceConfiguration": {"temperature": 0.2, "topP": 0.9, "topK": 250, "maximumLength": 2048, "stopSequences": ["</answer>"]}
        }]},
        "knowledgeBases": [{"id": "KB12345678", "description": "Travel guides", "supportedAgentFrameworks": ["bedrock"],
            "numberOfResults": 5, "overrideSearchType": "HYBRID",
            "filter": {"andAll": [{"equals": {"key": "lang", "value": "en"}}, {"greaterThan": {"key": "year", "value": 2020}}]},
            "rerankingConfiguration": {"type": "BEDROCK_RERANKING_MODEL", "bedrockRerankingConfiguration": {
                "modelConfiguration": {"modelArn": "arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0"},
                "numberOfRerankedResults": 3}}}]
    });
    assert_eq!(agent_paths(patch), Vec::<String>::new());
    // The registry's earlier lowercase value still loads as AWS's.
    let def: AgentDefinition =
        serde_json::from_value(merged(agent(), json!({"agentCollaboration": "supervisor"})))
            .unwrap();
    assert_eq!(def.agent_collaboration, Some(registry_core::AgentCollaboration::Supervisor));
    // Values that are not AWS's do not load at all.
    let bad = merged(agent(), json!({"agentCollaboration": "parallel"}));
    assert!(serde_json::from_value::<AgentDefinition>(bad).is_err());
}
