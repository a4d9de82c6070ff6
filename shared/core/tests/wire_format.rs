#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The wire format: camelCase, unknown fields captured, server fields, map keys.

use registry_core::{AgentDefinition, LifecycleStatus, ToolDefinition};
use serde_json::json;

#[test]
fn unknown_fields_are_captured_not_dropped() {
    let agent: AgentDefinition = serde_json::from_value(json!({
        "agentId": "a", "basePrompt": "p", "toolIds": [], "acessRules": [], "version": 3,
        "createdBy": "mallory"
    }))
    .unwrap();
    assert!(agent.unknown.contains_key("acessRules"));
    assert_eq!(agent.unknown.len(), 1);
    assert_eq!(agent.server.version, Some(3));
    assert_eq!(agent.server.created_by.as_deref(), Some("mallory"));
    let out = serde_json::to_value(&agent).unwrap();
    assert!(out.get("acessRules").is_none());
    assert_eq!(out["version"], 3);
}

#[test]
fn enabled_is_read_as_active_and_keys_are_kept() {
    let tool: ToolDefinition = serde_json::from_value(json!({
        "toolId": "t", "executionType": "mcp", "name": "n", "displayName": "d",
        "description": "x", "supportedAgentFrameworks": ["bedrock"], "url": "https://x",
        "auth": {"clientId": "c", "clientSecret": "s3cr3t", "tokenUrl": "https://t"},
        "tags": {"beta-only": "1", "Weird Key/~": "v"},
        "lifecycle": {"status": "enabled"}
    }))
    .unwrap();
    assert_eq!(tool.lifecycle.as_ref().unwrap().status, LifecycleStatus::Active);
    assert!(tool.unknown.is_empty(), "{:?}", tool.unknown);
    let out = serde_json::to_string(&tool.redacted()).unwrap();
    assert!(!out.contains("s3cr3t"));
    assert!(out.contains("\"Weird Key/~\""));
    assert!(!format!("{tool:?}").contains("s3cr3t"));
}

/// Every agent field, in the order the model writes them: the Bedrock settings flattened
/// into the definition keep their places, so stored and served JSON stay byte for byte.
#[test]
fn an_agent_with_every_field_is_written_back_byte_for_byte() {
    let text = concat!(
        r#"{"agentId":"a","description":"d","basePrompt":"p","foundationModel":"m","#,
        r#""verificationFoundationModel":"v","toolIds":["t@1"],"#,
        r#""accessRules":[{"condition":"true","effect":"allow"}],"#,
        r#""rolloutPolicy":{"percentage":50.0},"runtimeAdapter":"arn:r","dontCacheThis":true,"#,
        r#""collaborators":[{"agentId":"h","instruction":"i","historyRelay":"TO_AGENT"}],"#,
        r#""agentCollaboration":"SUPERVISOR","#,
        r#""knowledgeBases":[{"id":"KB1","description":"k","supportedAgentFrameworks":["bedrock"]}],"#,
        r#""guardrailConfiguration":{"guardrailIdentifier":"g","guardrailVersion":"1"},"#,
        r#""idleSessionTTLInSeconds":900,"#,
        r#""promptOverrideConfiguration":{"promptConfigurations":[{"promptType":"ORCHESTRATION"}]},"#,
        r#""customerEncryptionKeyArn":"arn:k","orchestrationType":"CUSTOM_ORCHESTRATION","#,
        r#""customOrchestration":{"executor":{"lambda":"arn:l"}},"#,
        r#""bedrockModelConfigurations":{"performanceConfig":{"latency":"optimized"}},"#,
        r#""lifecycle":{"status":"active"},"tags":{"k":"v"},"testType":"x","version":3,"#,
        r#""createdBy":"c","lastModifiedBy":"l","createdAt":"2025-01-01T00:00:00Z","#,
        r#""updatedAt":"2025-01-02T00:00:00Z"}"#
    );
    let agent: AgentDefinition = serde_json::from_str(text).unwrap();
    assert!(agent.unknown.is_empty(), "{:?}", agent.unknown);
    assert_eq!(agent.bedrock.idle_session_ttl_in_seconds, Some(900));
    assert!(agent.orchestration.custom_orchestration.is_some());
    assert_eq!(serde_json::to_string(&agent).unwrap(), text);
    // A flattened setting written as `null` reads as absent, as it did.
    let agent: AgentDefinition = serde_json::from_value(json!({
        "basePrompt": "p", "idleSessionTTLInSeconds": null, "orchestrationType": null
    }))
    .unwrap();
    assert_eq!(agent.bedrock, Default::default());
    assert_eq!(agent.orchestration, Default::default());
    assert!(agent.unknown.is_empty(), "{:?}", agent.unknown);
}

/// An unknown field beside the flattened Bedrock settings is captured, not taken by
/// them, so validation refuses it by path with the closest known name.
#[test]
fn an_unknown_field_beside_the_bedrock_settings_is_refused() {
    let agent: AgentDefinition = serde_json::from_value(json!({
        "agentId": "a", "basePrompt": "p".repeat(40), "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
        "toolIds": [], "idleSessionTTLInSeconds": 900, "idleSessionTTLInSecond": 60,
        "orchestrationType": "DEFAULT", "orchestrationTyp": "DEFAULT"
    }))
    .unwrap();
    assert_eq!(agent.bedrock.idle_session_ttl_in_seconds, Some(900));
    let keys: Vec<&String> = agent.unknown.keys().collect();
    assert_eq!(keys, ["idleSessionTTLInSecond", "orchestrationTyp"]);
    let violations = registry_core::validate::agent(&agent).unwrap_err();
    let found: Vec<(&str, &str)> =
        violations.iter().map(|v| (v.path.as_str(), v.message.as_str())).collect();
    assert_eq!(
        found,
        [
            (
                "/idleSessionTTLInSecond",
                "unknown field `idleSessionTTLInSecond`; did you mean `idleSessionTTLInSeconds`?"
            ),
            (
                "/orchestrationTyp",
                "unknown field `orchestrationTyp`; did you mean `orchestrationType`?"
            ),
        ]
    );
}
