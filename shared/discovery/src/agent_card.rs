//! An agent that declares its `endpoint` as an A2A agent card (the A2A 1.0 `AgentCard`,
//! in its JSON form), with one skill per function of the tools it is given.

use registry_core::{AgentDefinition, ToolDefinition};
use serde::Serialize;
use std::collections::BTreeMap;

/// The A2A protocol version the cards state.
pub const A2A_PROTOCOL_VERSION: &str = "1.0";

/// The name of the security scheme the cards declare: the registry's principal token as
/// a bearer token.
pub const SECURITY_SCHEME: &str = "registryPrincipal";

/// Where and how the agent is reached.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentInterface {
    /// The agent's endpoint.
    pub url: String,
    /// `JSONRPC`.
    pub protocol_binding: &'static str,
    /// The A2A version.
    pub protocol_version: &'static str,
}

/// What the agent's endpoint supports.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// Streaming answers: not declared by the registry.
    pub streaming: bool,
    /// Push notifications: not declared by the registry.
    pub push_notifications: bool,
}

/// An HTTP bearer scheme.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpAuthSecurityScheme {
    /// What the token is.
    pub description: &'static str,
    /// `bearer`.
    pub scheme: &'static str,
}

/// A security scheme (only the HTTP member is used).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecurityScheme {
    /// The HTTP bearer scheme.
    pub http_auth_security_scheme: HttpAuthSecurityScheme,
}

/// The scopes of each scheme a requirement names (none for bearer).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct StringList {
    /// The scopes.
    pub list: Vec<String>,
}

/// Schemes that together authorize a call.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct SecurityRequirement {
    /// Scheme name to its scopes.
    pub schemes: BTreeMap<String, StringList>,
}

/// One skill: one function of a tool the agent is given.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentSkill {
    /// `<tool name>.<function name>`.
    pub id: String,
    /// The function's name.
    pub name: String,
    /// The function's description (else the tool's).
    pub description: String,
    /// The tool's name (never the definition's tags: those are the operator's).
    pub tags: Vec<String>,
}

/// The A2A `AgentCard`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentCard {
    /// The agent id.
    pub name: String,
    /// The agent's description (else its id).
    pub description: String,
    /// The agent's endpoint.
    pub supported_interfaces: Vec<AgentInterface>,
    /// The definition's revision.
    pub version: String,
    /// What the endpoint supports.
    pub capabilities: AgentCapabilities,
    /// The registry's principal token as a bearer token.
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// The scheme every call needs.
    pub security_requirements: Vec<SecurityRequirement>,
    /// `text/plain`.
    pub default_input_modes: Vec<String>,
    /// `text/plain`.
    pub default_output_modes: Vec<String>,
    /// One per function of the tools given.
    pub skills: Vec<AgentSkill>,
}

/// The card of `agent` with skills from `tools`, or `None` when it declares no endpoint.
pub fn agent_card(agent: &AgentDefinition, tools: &[&ToolDefinition]) -> Option<AgentCard> {
    let endpoint = agent.endpoint.clone()?;
    let description = agent
        .description
        .clone()
        .filter(|d| !d.trim().is_empty())
        .unwrap_or_else(|| agent.agent_id.clone());
    let skills = tools
        .iter()
        .flat_map(|tool| {
            // the tool's name only: a definition's tags are the operator's metadata
            // (routing such as `gateway-target`, `review`), not for the card's readers
            let tags = vec![tool.name.clone()];
            tool.function_schema.iter().flatten().map(move |function| AgentSkill {
                id: format!("{}.{}", tool.name, function.name),
                name: function.name.clone(),
                description: Some(function.description.clone())
                    .filter(|d| !d.trim().is_empty())
                    .unwrap_or_else(|| tool.description.clone()),
                tags: tags.clone(),
            })
        })
        .collect();
    let scheme = SecurityScheme {
        http_auth_security_scheme: HttpAuthSecurityScheme {
            description: "the registry's principal token (the registryPrincipal session attribute of a resolution)",
            scheme: "bearer",
        },
    };
    Some(AgentCard {
        name: agent.agent_id.clone(),
        description,
        supported_interfaces: vec![AgentInterface {
            url: endpoint,
            protocol_binding: "JSONRPC",
            protocol_version: A2A_PROTOCOL_VERSION,
        }],
        version: agent.server.version.unwrap_or(1).to_string(),
        capabilities: AgentCapabilities { streaming: false, push_notifications: false },
        security_schemes: BTreeMap::from([(SECURITY_SCHEME.to_owned(), scheme)]),
        security_requirements: vec![SecurityRequirement {
            schemes: BTreeMap::from([(
                SECURITY_SCHEME.to_owned(),
                StringList { list: Vec::new() },
            )]),
        }],
        default_input_modes: vec!["text/plain".to_owned()],
        default_output_modes: vec!["text/plain".to_owned()],
        skills,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_tags_name_the_tool_and_never_the_operators_tags() {
        let tool: ToolDefinition = serde_json::from_value(serde_json::json!({
            "toolId": "files@1.0.0", "executionType": "mcp", "name": "files",
            "displayName": "Files", "description": "Files.", "supportedAgentFrameworks": ["bedrock"],
            "url": "https://mcp.example.com/files",
            "tags": {"gateway-target": "files", "review": "required"},
            "functionSchema": [{"name": "read", "description": "Reads.", "parameters": {}}],
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let agent: AgentDefinition = serde_json::from_value(serde_json::json!({
            "agentId": "a1", "basePrompt": "p", "toolIds": ["files@1.0.0"],
            "endpoint": "https://agents.example.com/a1",
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let card = agent_card(&agent, &[&tool]).unwrap_or_else(|| panic!("no card"));
        assert_eq!(card.skills[0].tags, ["files"]);
    }
}
