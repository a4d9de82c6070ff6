//! Warnings a resolution carries: served, but someone should act.

use serde::{Deserialize, Serialize};

/// Kind of warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum WarningCode {
    /// The agent, a tool or a collaborator is deprecated (see the date and migration path).
    Deprecated,
    /// A `toolOverrides` target is missing or retired; the original tool was kept.
    OverrideSkipped,
    /// A collaborator's own collaborators without an `agentAliasArn` were left out
    /// (inline agents nest one level).
    DepthLimit,
    /// Two tools share an action-group name; the later one was left out.
    DuplicateActionGroup,
    /// The principal context could not be signed (too large): guarded tools will
    /// refuse every call of this session.
    ContextNotSigned,
}

/// One warning, naming the agent and, for tool warnings, the tool.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Warning {
    /// Kind of warning.
    pub code: WarningCode,
    /// The agent concerned (the resolved agent or a collaborator).
    pub agent_id: String,
    /// The tool concerned, for tool warnings.
    pub tool_id: Option<String>,
    /// Human-readable explanation.
    pub message: String,
    /// `lifecycle.deprecationDate` of the deprecated definition.
    pub deprecation_date: Option<String>,
    /// `lifecycle.migrationPath` of the deprecated definition.
    pub migration_path: Option<String>,
}
