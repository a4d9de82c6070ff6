//! The stored form of a rule (access rules and call rules share it).

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

/// Whether a rule decides, or is only evaluated and reported (SPEC section 15).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum RuleMode {
    /// The rule decides (the default).
    #[default]
    Enforce,
    /// The rule is evaluated and what it would have decided is reported; it never
    /// changes the outcome.
    LogOnly,
}

impl RuleMode {
    /// Whether this is the default mode (`enforce`), left out when serializing.
    pub fn is_enforce(&self) -> bool {
        *self == RuleMode::Enforce
    }
}

/// One rule as written by an admin (the wire form).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccessRule {
    /// Identity, unique in its list (`^[a-z0-9][a-z0-9-]{0,62}$`); assigned on write
    /// when absent, then kept across revisions.
    pub id: Option<String>,
    /// CEL condition; absent means "always matches".
    pub condition: Option<String>,
    /// Effect when the rule matches.
    pub effect: Effect,
    /// Evaluation priority, lower first; unordered rules come last.
    pub order: Option<i64>,
    /// `enforce` (default) or `log-only`.
    #[serde(default, skip_serializing_if = "RuleMode::is_enforce")]
    pub mode: RuleMode,
    /// Human-readable explanation.
    pub description: Option<String>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: BTreeMap<String, Value>,
}

impl AccessRule {
    /// An enforced rule with `effect` and `condition`, nothing else set.
    pub fn new(effect: Effect, condition: Option<&str>) -> Self {
        Self {
            id: None,
            condition: condition.map(str::to_owned),
            effect,
            order: None,
            mode: RuleMode::Enforce,
            description: None,
            unknown: BTreeMap::new(),
        }
    }
}
