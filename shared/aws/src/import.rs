//! Importing a Bedrock agent: its draft (settings, action groups, knowledge bases,
//! collaborators) as registry definitions in their wire form, with a report of what
//! the registry cannot represent ([`Aws::import_agent`]).

use aws_sdk_bedrockagent::types::{ActionGroupExecutor, AgentActionGroup, OrchestrationType};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::plan::json;
use crate::publish::{schema_json, settings_of};
use crate::{Aws, AwsError};

/// The release every imported tool gets.
pub const IMPORTED_RELEASE: &str = "1.0.0";

/// A Bedrock agent as registry definitions.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Imported {
    /// The agent definition (wire form, as `PUT /agents/{id}` takes it).
    #[schema(value_type = Object)]
    pub agent: Value,
    /// One tool definition per Lambda action group with a function schema.
    #[schema(value_type = Vec<Object>)]
    pub tools: Vec<Value>,
    /// What was left out, and why.
    pub unrepresented: Vec<Unrepresented>,
}

/// A part of the Bedrock agent the import left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Unrepresented {
    /// Where in the Bedrock agent (`/actionGroups/<name>`, `/memoryConfiguration`...).
    pub path: String,
    /// Why the registry cannot hold it (or does not import it yet).
    pub reason: String,
}

impl Aws {
    /// Reads Bedrock agent `agent_id` into registry definitions. Action groups become
    /// tools `<action group name>@1.0.0`; collaborators become references to registry
    /// agents named after them, called through their Bedrock alias.
    pub async fn import_agent(&self, agent_id: &str) -> Result<Imported, AwsError> {
        let Some(raw) = self.read_raw(agent_id).await? else {
            return Err(AwsError::Invalid(vec![registry_core::Violation {
                path: "/agentId".into(),
                message: format!("Bedrock has no agent `{agent_id}`"),
            }]));
        };
        let mut unrepresented = Vec::new();
        let mut skip = |path: String, reason: &str| {
            unrepresented.push(Unrepresented { path, reason: reason.to_owned() });
        };

        let mut tools = Vec::new();
        for group in &raw.action_groups {
            match tool_of(group) {
                Ok(tool) => tools.push(tool),
                Err(reason) => skip(format!("/actionGroups/{}", group.action_group_name), reason),
            }
        }

        let settings = settings_of(&raw.agent);
        let mut agent = Map::new();
        agent.insert("agentId".into(), Value::from(registry_id(&raw.agent.agent_name)));
        for (key, value) in [
            ("basePrompt", &settings.instruction),
            ("foundationModel", &settings.foundation_model),
            ("description", &settings.description),
        ] {
            if let Some(value) = value {
                agent.insert(key.into(), Value::from(value.clone()));
            }
        }
        if let Value::Object(bedrock) = json(&settings.bedrock) {
            agent.extend(bedrock);
        }
        if raw.agent.orchestration_type.as_ref().is_some_and(|o| *o != OrchestrationType::Default) {
            skip("/orchestrationType".into(), "custom orchestration is not imported yet");
        }
        if raw.agent.prompt_override_configuration.is_some() {
            skip("/promptOverrideConfiguration".into(), "prompt overrides are not imported yet");
        }
        if raw.agent.memory_configuration.is_some() {
            skip("/memoryConfiguration".into(), "the registry has no agent memory settings");
        }
        let tool_ids: Vec<Value> = tools.iter().filter_map(|t| t.get("toolId").cloned()).collect();
        agent.insert("toolIds".into(), Value::Array(tool_ids));
        if !raw.knowledge_bases.is_empty() {
            let kbs: Vec<Value> = raw
                .knowledge_bases
                .iter()
                .map(|kb| {
                    json!({"id": kb.knowledge_base_id, "description": kb.description.clone().unwrap_or_default()})
                })
                .collect();
            agent.insert("knowledgeBases".into(), Value::Array(kbs));
        }
        if !raw.collaborators.is_empty() {
            let collaborators: Vec<Value> = raw
                .collaborators
                .iter()
                .map(|c| {
                    let mut out = json!({
                        "agentId": registry_id(&c.collaborator_name),
                        "instruction": c.collaboration_instruction,
                        "historyRelay": relay(c.relay_conversation_history.as_str()),
                    });
                    if let Some(arn) = c.agent_descriptor.as_ref().and_then(|d| d.alias_arn.clone())
                    {
                        out["agentAliasArn"] = Value::from(arn);
                    }
                    out
                })
                .collect();
            agent.insert("collaborators".into(), Value::Array(collaborators));
            if let Some(mode) = &settings.agent_collaboration {
                agent.insert("agentCollaboration".into(), json(mode));
            }
        }
        Ok(Imported { agent: Value::Object(agent), tools, unrepresented })
    }
}

/// A Lambda action group with a function schema as a tool definition, or why not.
fn tool_of(group: &AgentActionGroup) -> Result<Value, &'static str> {
    if group.parent_action_signature.is_some() {
        return Err("a built-in action group (user input, code interpreter) is Bedrock's own");
    }
    if group.api_schema.is_some() {
        return Err("OpenAPI action groups are not tools the registry can hold yet");
    }
    let lambda = match &group.action_group_executor {
        Some(ActionGroupExecutor::Lambda(arn)) => arn.clone(),
        Some(ActionGroupExecutor::CustomControl(_)) => {
            return Err("a return-of-control group has no code the registry could hold \
                        (register it as an inline or MCP tool)");
        }
        _ => return Err("the action group has no executor"),
    };
    let functions = schema_json(group.function_schema.as_ref())
        .get("functions")
        .cloned()
        .ok_or("the action group has no function schema")?;
    let name = group.action_group_name.clone();
    Ok(json!({
        "toolId": format!("{name}@{IMPORTED_RELEASE}"),
        "executionType": "lambda",
        "name": name,
        "displayName": name,
        "description": group.description.clone().unwrap_or_default(),
        "lambdaArn": lambda,
        "supportedAgentFrameworks": ["bedrock"],
        "functionSchema": functions,
    }))
}

/// The registry's history relay for Bedrock's `relayConversationHistory`.
fn relay(bedrock: &str) -> &'static str {
    if bedrock == "TO_COLLABORATOR" { "TO_COLLABORATOR" } else { "TO_AGENT" }
}

/// A registry id for a Bedrock name: lower case, runs of other characters as `-`.
pub fn registry_id(name: &str) -> String {
    let mut id = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            id.push(c.to_ascii_lowercase());
        } else if !id.ends_with('-') && !id.is_empty() {
            id.push('-');
        }
    }
    id.trim_end_matches('-').to_owned()
}
