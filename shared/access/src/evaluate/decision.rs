//! The explanation carried by every access decision (SPEC section 4).

use crate::rule::Effect;
use serde::{Deserialize, Serialize};

/// Why a decision came out the way it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReasonCode {
    /// No rules: allowed.
    NoRules,
    /// A rule's condition was absent or true: its effect.
    RuleMatch,
    /// Rules exist and none matched: denied.
    NoMatch,
    /// A `deny` rule's condition failed to evaluate: denied (errors never widen access).
    Error,
}

impl ReasonCode {
    /// The wire name, e.g. `RULE_MATCH`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NoRules => "NO_RULES",
            Self::RuleMatch => "RULE_MATCH",
            Self::NoMatch => "NO_MATCH",
            Self::Error => "ERROR",
        }
    }
}

/// A condition that failed at run time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvalError {
    /// Position of the rule in the list as written.
    pub rule_index: usize,
    /// What went wrong (missing field, type mismatch, budget exceeded, non-bool result).
    pub message: String,
}

/// The outcome of evaluating a rule list against a context, with its explanation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// Allow or deny.
    pub effect: Effect,
    /// Why.
    pub reason: ReasonCode,
    /// Position (in the list as written) of the deciding rule, if one decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_index: Option<usize>,
    /// `order` of the deciding rule, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_order: Option<i64>,
    /// Conditions that failed at run time, in evaluation order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<EvalError>,
}

impl Decision {
    /// Whether access is granted.
    pub fn is_allowed(&self) -> bool {
        self.effect == Effect::Allow
    }
}
