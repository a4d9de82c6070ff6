//! The decision trace of a resolution: what was decided for the agent, each tool and
//! each collaborator, and why.

use registry_access::Decision;
use serde::{Deserialize, Serialize};

use crate::model::LifecycleStatus;
use crate::rollout::RolloutDecision;

/// What happened to an agent (the resolved one or a collaborator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AgentOutcome {
    /// Resolved and included.
    Resolved,
    /// No live agent with that id.
    NotFound,
    /// Lifecycle `disabled`: left out.
    Disabled,
    /// Lifecycle `retired`: left out.
    Retired,
    /// Its access rules deny the caller (see `access`).
    Denied,
    /// Its rollout policy leaves the caller out (see `rollout`).
    NotAvailable,
    /// Already being resolved higher up the collaborator chain: left out.
    Cycle,
    /// A collaborator's own collaborator with no `agentAliasArn`: inline agents nest one
    /// level of collaborators, so it is left out.
    DepthLimit,
    /// Its stored access rules do not compile: left out (fail closed).
    InvalidRules,
}

impl AgentOutcome {
    /// The wire name, e.g. `NOT_AVAILABLE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Resolved => "RESOLVED",
            Self::NotFound => "NOT_FOUND",
            Self::Disabled => "DISABLED",
            Self::Retired => "RETIRED",
            Self::Denied => "DENIED",
            Self::NotAvailable => "NOT_AVAILABLE",
            Self::Cycle => "CYCLE",
            Self::DepthLimit => "DEPTH_LIMIT",
            Self::InvalidRules => "INVALID_RULES",
        }
    }
}

/// What happened to a tool of an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ToolOutcome {
    /// Included as an action group.
    Included,
    /// No live tool with that id: left out.
    NotFound,
    /// Lifecycle `disabled`: left out.
    Disabled,
    /// Lifecycle `retired`: left out.
    Retired,
    /// Its access rules deny the caller (see `access`): left out.
    Denied,
    /// Stored rules or execution fields are unusable: left out (fail closed).
    Invalid,
    /// Listed twice (after overrides): the later one left out.
    Duplicate,
    /// Another included tool has the same action-group name: left out.
    DuplicateName,
    /// A range that no live, usable release matches: left out (see `skippedReleases`).
    NoMatchingRelease,
}

/// A release a range passed over, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkippedRelease {
    /// The release id.
    pub tool_id: String,
    /// Why it was not chosen.
    pub reason: crate::release::SkipReason,
}

/// A `toolOverrides` entry that matched one of the agent's `toolIds`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OverrideTrace {
    /// The tool id in `toolIds`.
    pub from: String,
    /// The replacement named by the override.
    pub to: String,
    /// Whether the replacement was used (it exists and is not retired).
    pub applied: bool,
}

/// The decisions about one tool.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolTrace {
    /// The tool id (after overrides; for a range, the release chosen, or the range
    /// when none matched).
    pub tool_id: String,
    /// The range as written in `toolIds` or `toolOverrides`, when the tool was named by
    /// one (`weather@^1.2`).
    pub range: Option<String>,
    /// Releases of the range newer than the one chosen (all, when none was), newest
    /// first, each with why it was passed over.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_releases: Vec<SkippedRelease>,
    /// The id it replaced through `toolOverrides`.
    pub replaces: Option<String>,
    /// The tool version used.
    pub version: Option<u64>,
    /// Action-group name, when the tool was found.
    pub action_group_name: Option<String>,
    /// What happened.
    pub outcome: ToolOutcome,
    /// Lifecycle status, when the tool was found.
    pub lifecycle: Option<LifecycleStatus>,
    /// The access decision, when rules were evaluated.
    pub access: Option<Decision>,
    /// Detail for `INVALID`.
    pub message: Option<String>,
}

/// The decisions about one agent, its tools and (recursively) its collaborators.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentTrace {
    /// The agent id.
    pub agent_id: String,
    /// The agent version used, when found.
    pub version: Option<u64>,
    /// What happened.
    pub outcome: AgentOutcome,
    /// Lifecycle status, when found.
    pub lifecycle: Option<LifecycleStatus>,
    /// The access decision, when rules were evaluated.
    pub access: Option<Decision>,
    /// The rollout decision, when rollout was checked.
    pub rollout: Option<RolloutDecision>,
    /// The agent's session budgets, as the tools it calls enforce them.
    pub limits: Option<crate::model::AgentLimits>,
    /// Overrides that matched a tool id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<OverrideTrace>,
    /// One entry per tool id, in `toolIds` order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolTrace>,
    /// One entry per collaborator, in definition order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(no_recursion)]
    pub collaborators: Vec<AgentTrace>,
    /// Detail for `INVALID_RULES`, `CYCLE` and `DEPTH_LIMIT`.
    pub message: Option<String>,
}

/// One tool or collaborator a resolution left out, and why: the compact form of the
/// trace that every resolve answers with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeftOut {
    /// The tool id, or the collaborator's agent id.
    pub id: String,
    /// `tool` or `collaborator`.
    pub kind: String,
    /// The outcome that left it out (`DENIED`, `DISABLED`, `NOT_AVAILABLE`...).
    pub reason: String,
    /// The id of the rule that denied it, when a rule did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<String>,
}

fn wire<T: Serialize>(value: T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

impl AgentTrace {
    /// The tools and collaborators left out, at every level, in trace order.
    pub fn left_out(&self) -> Vec<LeftOut> {
        let mut out = Vec::new();
        self.collect_left_out(&mut out);
        out
    }

    fn collect_left_out(&self, out: &mut Vec<LeftOut>) {
        let rule =
            |d: &Option<Decision>| d.as_ref().and_then(|d| d.rule_id.as_deref().map(str::to_owned));
        for tool in self.tools.iter().filter(|t| t.outcome != ToolOutcome::Included) {
            out.push(LeftOut {
                id: tool.tool_id.clone(),
                kind: "tool".into(),
                reason: wire(tool.outcome),
                rule_id: rule(&tool.access),
            });
        }
        for c in &self.collaborators {
            if c.outcome == AgentOutcome::Resolved {
                c.collect_left_out(out);
            } else {
                out.push(LeftOut {
                    id: c.agent_id.clone(),
                    kind: "collaborator".into(),
                    reason: c.outcome.as_str().to_owned(),
                    rule_id: rule(&c.access),
                });
            }
        }
    }

    /// A trace entry for `agent_id` with only an outcome.
    pub fn new(agent_id: &str, outcome: AgentOutcome) -> Self {
        Self {
            agent_id: agent_id.to_owned(),
            version: None,
            outcome,
            lifecycle: None,
            access: None,
            rollout: None,
            limits: None,
            overrides: Vec::new(),
            tools: Vec::new(),
            collaborators: Vec::new(),
            message: None,
        }
    }

    /// The entry of the tool `tool_id`, if it was considered.
    pub fn tool(&self, tool_id: &str) -> Option<&ToolTrace> {
        self.tools.iter().find(|t| t.tool_id == tool_id)
    }

    /// The entry of the collaborator `agent_id` (direct collaborators only).
    pub fn collaborator(&self, agent_id: &str) -> Option<&AgentTrace> {
        self.collaborators.iter().find(|c| c.agent_id == agent_id)
    }
}
