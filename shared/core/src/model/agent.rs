//! Agent definitions.

use serde::{Deserialize, Serialize};

use super::bedrock::{
    BedrockSettings, OrchestrationSettings, RerankingConfiguration, RetrievalFilter, SearchType,
};
use super::{AgentFramework, Lifecycle, RolloutPolicy, ServerFields, Tags, Unknown};
use registry_access::AccessRule;

use crate::release::{ToolRef, may_be_range};

/// How conversation history is relayed to a collaborator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum HistoryRelay {
    /// Relay the history to the collaborator.
    ToCollaborator,
    /// Keep the history with the agent.
    ToAgent,
}

/// Bedrock's `agentCollaboration`: how an agent works with its collaborators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AgentCollaboration {
    /// The agent plans, hands work to collaborators and combines their answers.
    #[serde(alias = "supervisor")]
    Supervisor,
    /// The agent routes each request to the one collaborator that fits.
    SupervisorRouter,
    /// No collaboration (an agent with collaborators cannot use it).
    Disabled,
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
    /// Alias ARN of the collaborator published as a persistent Bedrock agent: Bedrock
    /// calls that alias instead of an inline copy (required for a collaborator's own
    /// collaborators, which inline agents cannot nest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_alias_arn: Option<String>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: Unknown,
}

/// A Bedrock knowledge base attached to the agent.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeBase {
    /// Knowledge base id.
    pub id: String,
    /// What the knowledge base holds, for the model.
    pub description: String,
    /// Frameworks this knowledge base works with.
    pub supported_agent_frameworks: Vec<AgentFramework>,
    /// Bedrock's retrieval filter on metadata.
    pub filter: Option<RetrievalFilter>,
    /// How many results retrieval returns (1 to 100).
    pub number_of_results: Option<u32>,
    /// `HYBRID` or `SEMANTIC` search instead of the knowledge base's default.
    pub override_search_type: Option<SearchType>,
    /// Reranking of the results by a Bedrock model.
    pub reranking_configuration: Option<RerankingConfiguration>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: Unknown,
}

/// An agent: prompt, model, tools, collaborators and the rules for who may run it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentDefinition {
    /// Agent id; generated (UUIDv7) when omitted on create.
    #[serde(default)]
    pub agent_id: String,
    /// What the agent is for, for people (Bedrock's agent `description`; 1 to 200
    /// characters; not part of an inline agent).
    pub description: Option<String>,
    /// The agent's instruction: Bedrock's `instruction` (40 to 4,000 characters).
    #[serde(default)]
    pub base_prompt: String,
    /// Bedrock foundation model id, inference profile or ARN (required on write).
    pub foundation_model: Option<String>,
    /// Model used to verify answers.
    pub verification_foundation_model: Option<String>,
    /// Tools the agent uses, by id.
    #[serde(default)]
    pub tool_ids: Vec<String>,
    /// Who may run the agent.
    pub access_rules: Option<Vec<AccessRule>>,
    /// What one Bedrock session of the agent may do (SPEC section 19).
    pub limits: Option<super::AgentLimits>,
    /// Gradual rollout.
    pub rollout_policy: Option<RolloutPolicy>,
    /// Lambda ARN of a custom runtime adapter.
    pub runtime_adapter: Option<String>,
    /// Where the agent is served over A2A (https, or http on loopback): an agent that
    /// declares it gets an agent card (docs/discovery.md). Not part of an inline agent.
    pub endpoint: Option<String>,
    /// Tells runtimes not to cache the resolved agent.
    pub dont_cache_this: Option<bool>,
    /// Agents this agent collaborates with.
    pub collaborators: Option<Vec<Collaborator>>,
    /// Collaboration mode.
    pub agent_collaboration: Option<AgentCollaboration>,
    /// Knowledge bases the agent can query.
    pub knowledge_bases: Option<Vec<KnowledgeBase>>,
    /// Bedrock's own agent settings (guardrail, session time-out, prompt overrides,
    /// encryption key).
    #[serde(flatten)]
    pub bedrock: BedrockSettings,
    /// How Bedrock orchestrates the agent.
    #[serde(flatten)]
    pub orchestration: OrchestrationSettings,
    /// Lifecycle state.
    pub lifecycle: Option<Lifecycle>,
    /// Free-form tags; keys kept byte for byte.
    pub tags: Option<Tags>,
    /// Marks a test double.
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
    /// Every tool reference as written: `toolIds`, then `toolOverrides` targets.
    fn all_references(&self) -> impl Iterator<Item = &String> {
        let overrides = self.rollout_policy.as_ref().and_then(|r| r.tool_overrides.as_ref());
        self.tool_ids.iter().chain(overrides.into_iter().flat_map(|o| o.values()))
    }

    /// Exact tool ids this agent depends on (`toolIds` and `toolOverrides` targets that
    /// name one release), sorted, without duplicates: what the store keeps referential
    /// integrity for. Ranges (`weather@^1`) are not among them: they are checked against
    /// the live releases on write and chosen at resolution.
    pub fn references(&self) -> Vec<String> {
        let mut refs: Vec<String> = self
            .all_references()
            .filter_map(|r| match ToolRef::parse(r) {
                Ok(ToolRef::Exact(id)) => Some(id),
                _ => None,
            })
            .collect();
        refs.sort();
        refs.dedup();
        refs
    }

    /// Whether the agent uses `tool_id`: a reference in `toolIds` or `toolOverrides`
    /// names it (exactly, or by a range it is in).
    pub fn uses_tool(&self, tool_id: &str) -> bool {
        self.all_references().any(|r| ToolRef::parse(r).is_ok_and(|r| r.admits(tool_id)))
    }

    /// Names of the tools this agent names by range, sorted, without duplicates.
    pub fn range_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .all_references()
            .filter(|r| may_be_range(r))
            .filter_map(|r| match ToolRef::parse(r) {
                Ok(ToolRef::Range { name, .. }) => Some(name),
                _ => None,
            })
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// Number of distinct tool references, exact or ranges (the write limit counts both).
    pub fn reference_count(&self) -> usize {
        let mut all: Vec<&String> = self.all_references().collect();
        all.sort();
        all.dedup();
        all.len()
    }
}
