//! The result of a resolution: an InvokeInlineAgent-ready configuration, warnings and
//! the decision trace.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::AgentCollaboration;
use crate::resolve::bedrock::{ActionGroup, CollaboratorConfiguration, ResolvedKnowledgeBase};
use crate::resolve::trace::AgentTrace;
use crate::resolve::warning::Warning;

/// One agent as Bedrock InvokeInlineAgent takes it (the resolved agent, or a
/// collaborator inside `collaborators`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedAgent {
    /// The agent id.
    pub agent_id: String,
    /// The agent id in Bedrock's name pattern (`agentName`, `collaboratorName`).
    pub agent_name: String,
    /// The agent version resolved.
    pub version: u64,
    /// The agent's `basePrompt`.
    pub instruction: String,
    /// Bedrock foundation model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foundation_model: Option<String>,
    /// One action group per tool the caller may use.
    #[schema(value_type = Vec<ActionGroup>)]
    pub action_groups: Vec<Arc<ActionGroup>>,
    /// Knowledge bases.
    #[serde(default)]
    pub knowledge_bases: Vec<ResolvedKnowledgeBase>,
    /// Collaborators the caller may use, resolved the same way (a collaborator shared
    /// by several agents is resolved once and shared).
    #[serde(default)]
    #[schema(no_recursion, value_type = Vec<ResolvedAgent>)]
    pub collaborators: Vec<Arc<ResolvedAgent>>,
    /// One per entry of `collaborators`, same order.
    #[serde(default)]
    pub collaborator_configurations: Vec<CollaboratorConfiguration>,
    /// Collaboration mode, as defined on the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_collaboration: Option<AgentCollaboration>,
}

/// What `resolve(agentId, context)` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Resolution {
    /// The configuration to hand to Bedrock.
    #[serde(flatten)]
    pub agent: ResolvedAgent,
    /// Deprecations, skipped overrides, depth limits.
    pub warnings: Vec<Warning>,
    /// Every decision taken, with its reason.
    pub trace: AgentTrace,
}
