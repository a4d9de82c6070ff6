//! The stored form of an access rule.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// What a matching rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    /// Grant access.
    Allow,
    /// Refuse access.
    Deny,
}

/// One access rule as written by an admin (the wire form).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccessRule {
    /// CEL condition; absent means "always matches".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// Effect when the rule matches.
    pub effect: Effect,
    /// Evaluation priority, lower first; unordered rules come last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<i64>,
    /// Human-readable explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: BTreeMap<String, Value>,
}
