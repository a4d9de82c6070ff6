//! Agent definitions.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{AgentFramework, Lifecycle, RolloutPolicy, ServerFields, Tags, Unknown};
use registry_access::AccessRule;

/// How conversation history is relayed to a collaborator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum HistoryRelay {
    /// Relay the history to the collaborator.
    ToCollaborator,
    /// Keep the history with the agent.
    ToAgent,
}

/// How an agent works with its collaborators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AgentCollaboration {
    /// The agent coordinates its collaborators.
    Supervisor,
    /// Collaborators run one after another.
    Sequential,
    /// Collaborators run at the same time.
    Parallel,
}

/// Another agent this agent can hand work to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Collaborator {
    /// Id of the collaborating agent.
    pub agent_id: String,
    /// The collaborator's role, for the supervisor.
    pub instruction: String,
    /// History relay mode.
    pub history_relay: HistoryRelay,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: Unknown,
}

/// A Bedrock knowledge base attached to the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeBase {
    /// Knowledge base id.
    pub id: String,
    /// What the knowledge base holds, for the model.
    pub description: String,
    /// Frameworks this knowledge base works with.
    pub supported_agent_frameworks: Vec<AgentFramework>,
    /// Retrieval filter, passed through untouched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<Value>,
    /// How many results retrieval returns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_of_results: Option<u32>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: Unknown,
}

/// An agent: prompt, model, tools, collaborators and the rules for who may run it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentDefinition {
    /// Agent id; generated (UUIDv7) when omitted on create.
    #[serde(default)]
    pub agent_id: String,
    /// The agent's instruction (non-empty).
    #[serde(default)]
    pub base_prompt: String,
    /// Bedrock foundation model id or ARN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foundation_model: Option<String>,
    /// Model used to verify answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_foundation_model: Option<String>,
    /// Tools the agent uses, by id.
    #[serde(default)]
    pub tool_ids: Vec<String>,
    /// Who may run the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_rules: Option<Vec<AccessRule>>,
    /// Gradual rollout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollout_policy: Option<RolloutPolicy>,
    /// Lambda ARN of a custom runtime adapter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_adapter: Option<String>,
    /// Tells runtimes not to cache the resolved agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dont_cache_this: Option<bool>,
    /// Agents this agent collaborates with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collaborators: Option<Vec<Collaborator>>,
    /// Collaboration mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_collaboration: Option<AgentCollaboration>,
    /// Knowledge bases the agent can query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knowledge_bases: Option<Vec<KnowledgeBase>>,
    /// Lifecycle state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<Lifecycle>,
    /// Free-form tags; keys kept byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Tags>,
    /// Marks a test double.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_type: Option<String>,
    /// Server-managed fields.
    #[serde(flatten)]
    pub server: ServerFields,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: Unknown,
}

impl AgentDefinition {
    /// Tool ids this agent depends on: `toolIds` and `toolOverrides` targets, sorted,
    /// without duplicates.
    pub fn references(&self) -> Vec<String> {
        let mut refs = self.tool_ids.clone();
        if let Some(overrides) =
            self.rollout_policy.as_ref().and_then(|r| r.tool_overrides.as_ref())
        {
            refs.extend(overrides.values().cloned());
        }
        refs.sort();
        refs.dedup();
        refs
    }
}
