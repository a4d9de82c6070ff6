//! Discovery's fixtures: MCP tools, and definitions applied straight through the catalog.

use registry_api::{Principal, Role};
use serde_json::{Value, json};

use super::Server;

/// An MCP tool release `id` of server `name`, with one function and, if given, access
/// rules.
pub fn mcp(id: &str, name: &str, description: &str, rules: Option<Value>) -> Value {
    let mut tool = json!({
        "toolId": id,
        "executionType": "mcp",
        "name": name,
        "displayName": name.replace('_', " "),
        "description": description,
        "supportedAgentFrameworks": ["bedrock"],
        "url": format!("https://mcp.example.com/{name}"),
        "functionSchema": [{
            "name": format!("{name}_call"),
            "description": description,
            "parameters": { "input": { "description": "What to look up", "type": "string", "required": true } }
        }],
    });
    if let Some(rules) = rules {
        tool["accessRules"] = rules;
    }
    tool
}

/// Applies the definition `body` as `id`, as an admin, straight through the catalog.
pub async fn apply(s: &Server, id: &str, body: Value) {
    let admin = Principal::new("test-loader", Role::Admin);
    let outcome = if body.get("agentId").is_some() {
        let agent: registry_core::AgentDefinition = serde_json::from_value(body).unwrap();
        s.registry.catalog.apply(&admin, id, agent, None, None).await.map(|_| ())
    } else {
        let tool: registry_core::ToolDefinition = serde_json::from_value(body).unwrap();
        s.registry.catalog.apply(&admin, id, tool, None, None).await.map(|_| ())
    };
    outcome.unwrap_or_else(|e| panic!("{id}: {e}"));
}
