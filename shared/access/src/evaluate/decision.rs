//! The explanation carried by every access decision (SPEC section 4).

use crate::evaluate::RuleResult;
use crate::rule::Effect;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// Allow or deny.
    pub effect: Effect,
    /// Why.
    pub reason: ReasonCode,
    /// Position (in the list as written) of the deciding rule, if one decided.
    pub rule_index: Option<usize>,
    /// `order` of the deciding rule, if it has one.
    pub rule_order: Option<i64>,
    /// `id` of the deciding rule, if one decided and it has an id.
    #[schema(value_type = Option<String>)]
    pub rule_id: Option<Arc<str>>,
    /// Conditions of enforced rules that failed at run time, in evaluation order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<EvalError>,
    /// The log-only rules reached before the decision, with what each gave.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub log_only: Vec<LogOnlyOutcome>,
    /// What the decision would have been with the log-only rules enforced, when that
    /// differs from `effect`.
    pub would_be: Option<WouldBe>,
}

/// What one log-only rule gave (SPEC section 15).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogOnlyOutcome {
    /// Position of the rule in the list as written.
    pub rule_index: usize,
    /// The rule's id, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub rule_id: Option<Arc<str>>,
    /// The rule's effect.
    pub effect: Effect,
    /// What its condition gave.
    #[serde(flatten)]
    pub result: RuleResult,
    /// Whether it would have decided, had it been enforced.
    pub would_decide: bool,
}

/// The decision the rules would have made with the log-only rules enforced.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WouldBe {
    /// The effect it would have had.
    pub effect: Effect,
    /// Why.
    pub reason: ReasonCode,
    /// Position of the rule that would have decided, if one would have.
    pub rule_index: Option<usize>,
    /// Id of the rule that would have decided, if one would have and it has an id.
    #[schema(value_type = Option<String>)]
    pub rule_id: Option<Arc<str>>,
}

/// The outcome of a decision as metrics and the decision log count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Allowed, and log-only rules agree.
    Allow,
    /// Denied.
    Deny,
    /// Allowed, but a log-only rule would have denied.
    WouldDeny,
    /// Denied, but with the log-only rules enforced it would have been allowed.
    WouldAllow,
}

impl Outcome {
    /// The wire name, e.g. `would-deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Deny => "deny",
            Self::WouldDeny => "would-deny",
            Self::WouldAllow => "would-allow",
        }
    }
}

impl Decision {
    /// A decision of `effect` for `reason` that no rule made (no errors, no log-only
    /// outcomes).
    pub fn new(effect: Effect, reason: ReasonCode) -> Self {
        Self {
            effect,
            reason,
            rule_index: None,
            rule_order: None,
            rule_id: None,
            errors: Vec::new(),
            log_only: Vec::new(),
            would_be: None,
        }
    }

    /// Whether access is granted.
    pub fn is_allowed(&self) -> bool {
        self.effect == Effect::Allow
    }

    /// The decision as metrics count it: the effect, or what log-only rules would
    /// have changed it to.
    pub fn outcome(&self) -> Outcome {
        match (self.effect, self.would_be.as_ref().map(|w| w.effect)) {
            (Effect::Allow, Some(Effect::Deny)) => Outcome::WouldDeny,
            (Effect::Deny, Some(Effect::Allow)) => Outcome::WouldAllow,
            (Effect::Allow, _) => Outcome::Allow,
            (Effect::Deny, _) => Outcome::Deny,
        }
    }
}
