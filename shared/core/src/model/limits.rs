//! What one Bedrock session of an agent may do (SPEC section 19), and how often a
//! principal may call a tool.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::Unknown;

/// An agent's session budgets. Every present value is a positive integer.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentLimits {
    /// Tool calls in one session, all tools together (enforced where calls run).
    pub max_tool_calls: Option<i64>,
    /// Tool calls in one session per function name (enforced where calls run).
    pub max_calls_per_function: Option<BTreeMap<String, i64>>,
    /// Seconds from the session's first tool call after which calls are refused
    /// (enforced where calls run).
    pub max_wall_clock_seconds: Option<i64>,
    /// Output tokens of each model response: Bedrock's `maximumLength` on every prompt
    /// step the agent overrides (enforced by Bedrock).
    pub max_total_output_tokens: Option<i64>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: Unknown,
}

/// Whose calls a rate limit counts together.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RateKey {
    /// `user.userId` of the principal (the default).
    #[default]
    Principal,
    /// `account.accountId`.
    Account,
}

impl RateKey {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Principal => "principal",
            Self::Account => "account",
        }
    }
}

/// At most `calls` calls of a tool per `perSeconds` (a fixed window) per principal or
/// account.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RateLimit {
    /// Calls allowed in one window.
    pub calls: i64,
    /// The window, in seconds.
    pub per_seconds: i64,
    /// Whose calls count together.
    #[serde(default)]
    pub key: RateKey,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: Unknown,
}
