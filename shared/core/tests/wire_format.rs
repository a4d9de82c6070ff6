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
