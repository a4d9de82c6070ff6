//! The result of a resolution: the `InvokeInlineAgent` request (minus the per-call
//! members), the registry's own fields beside it, warnings and the decision trace.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::{AgentCollaboration, BedrockSettings, OrchestrationSettings};
use crate::resolve::bedrock::{ActionGroup, CollaboratorConfiguration, ResolvedKnowledgeBase};
use crate::resolve::encoded::Encoded;
use crate::resolve::trace::AgentTrace;
use crate::resolve::warning::Warning;

/// One agent as Bedrock's `Collaborator` shape takes it: what an inline agent and each
/// of its collaborators have in common.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BedrockAgent {
    /// The agent id in Bedrock's name pattern (`agentName`, `collaboratorName`).
    pub agent_name: String,
    /// Bedrock foundation model.
    pub foundation_model: String,
    /// The agent's `basePrompt`.
    pub instruction: String,
    /// One action group per tool the caller may use.
    #[schema(value_type = Vec<ActionGroup>)]
    pub action_groups: Vec<Arc<Encoded<ActionGroup>>>,
    /// Knowledge bases.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knowledge_bases: Vec<ResolvedKnowledgeBase>,
    /// How each collaborator is used, one per collaborator the caller may use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collaborator_configurations: Vec<CollaboratorConfiguration>,
    /// Collaboration mode; set only when there are collaborator configurations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_collaboration: Option<AgentCollaboration>,
    /// The agent's own Bedrock settings.
    #[serde(flatten)]
    pub bedrock: BedrockSettings,
}

/// Bedrock's `InvokeInlineAgent` request without the per-call members (`sessionId`,
/// `inputText`, `enableTrace`, `endSession`, `inlineSessionState`,
/// `streamingConfigurations`, `promptCreationConfigurations`): a runtime adds those and
/// sends it as it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InlineAgent {
    /// The agent itself.
    #[serde(flatten)]
    pub agent: BedrockAgent,
    /// Collaborators inlined (one level, as inline agents take them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(value_type = Vec<BedrockAgent>)]
    pub collaborators: Vec<Arc<BedrockAgent>>,
    /// How Bedrock orchestrates the agent as a whole.
    #[serde(flatten)]
    pub orchestration: OrchestrationSettings,
    /// Session state the registry sets: the principal token (SPEC section 16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_session_state: Option<InlineSessionState>,
}

/// Bedrock's `InlineSessionState`, with the members the registry sets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InlineSessionState {
    /// Attributes Bedrock passes to every action-group invocation of the session.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub session_attributes: BTreeMap<String, String>,
}

/// What `resolve(agentId, context)` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Resolution {
    /// The `InvokeInlineAgent` request to hand to Bedrock, plus `sessionId` and `inputText`.
    pub inline_agent: InlineAgent,
    /// The agent resolved.
    pub agent_id: String,
    /// Its version (revision) resolved.
    pub version: u64,
    /// Deprecations, skipped overrides, collaborators left out.
    pub warnings: Vec<Warning>,
    /// Every decision taken, with its reason (collaborators' ids and versions too).
    pub trace: AgentTrace,
    /// The Bedrock session the principal token is bound to (its `sid`), when one was
    /// issued: the `sessionId` to send the request with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}
