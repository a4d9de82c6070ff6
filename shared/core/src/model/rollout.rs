//! Rollout policy of an agent (SPEC section 5).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::Unknown;

/// Which caller attribute keeps percentage bucketing stable.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum Stickiness {
    /// Bucket by `account.accountId` (default).
    #[default]
    AccountId,
    /// Bucket by `user.userId`.
    UserId,
}

/// Gradual rollout: regions, beta accounts, a percentage, tool overrides.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RolloutPolicy {
    /// Account ids with early access.
    pub beta_accounts: Option<Vec<String>>,
    /// AWS regions where the agent is available; empty means everywhere.
    pub region_restrictions: Option<Vec<String>>,
    /// Old tool id -> new tool id, applied at resolution; keys kept byte for byte.
    pub tool_overrides: Option<BTreeMap<String, String>>,
    /// Share of callers (0..100, two decimals) that get the agent.
    pub percentage: Option<f64>,
    /// Attribute used for percentage bucketing.
    pub stickiness: Option<Stickiness>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: Unknown,
}
