//! Which step of the decision decided, and why.

use registry_access::{DecisionPoint, ReasonCode};
use registry_core::LifecycleStatus;
use serde::Serialize;

/// Which check decided, in the order [`decide`](crate::decide) runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// The tool is disabled or retired.
    Lifecycle,
    /// The principal's agent does not grant the tool release (SPEC section 21): the
    /// agent is missing, switched off or refused to the principal, or its resolution
    /// does not reach the release.
    Grant,
    /// The tool's access rules deny the principal.
    Access,
    /// The call rules decided (or there are none: allowed).
    Call,
    /// A session budget of the agent or the tool's rate limit was spent, or the call
    /// needs counting and could not be counted.
    Limit,
}

impl Stage {
    /// Every stage, in the order [`decide`](crate::decide) runs them.
    pub const ALL: [Self; 5] =
        [Self::Lifecycle, Self::Grant, Self::Access, Self::Call, Self::Limit];

    /// The stage's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lifecycle => "lifecycle",
            Self::Grant => "grant",
            Self::Access => "access",
            Self::Call => "call",
            Self::Limit => "limit",
        }
    }
}

/// Why the decision is what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The rules decided (`NO_RULES`, `RULE_MATCH`, `NO_MATCH`, `ERROR`).
    Rules(ReasonCode),
    /// The tool's lifecycle status (`disabled` or `retired`).
    SwitchedOff(LifecycleStatus),
    /// The principal's agent does not grant the tool release (`NOT_GRANTED`).
    NotGranted,
    /// A session limit or the rate refused the call (`LIMIT`).
    Limit,
    /// The call needs counting and this point cannot count it, or its counts could not
    /// be read (`BUDGETS_UNAVAILABLE`).
    BudgetsUnavailable,
    /// The call would count in a session whose id is not one Bedrock makes
    /// (`INVALID_SESSION`).
    InvalidSession,
}

impl Reason {
    /// The reason code a decision line and an answer of `point` carry. The guard names
    /// a switched-off tool `TOOL_SWITCHED_OFF`, the others `DISABLED` or `RETIRED`.
    pub fn code(self, point: DecisionPoint) -> &'static str {
        match self {
            Self::Rules(code) => code.as_str(),
            Self::SwitchedOff(_) if point == DecisionPoint::Guard => "TOOL_SWITCHED_OFF",
            Self::SwitchedOff(LifecycleStatus::Retired) => "RETIRED",
            Self::SwitchedOff(_) => "DISABLED",
            Self::NotGranted => "NOT_GRANTED",
            Self::Limit => "LIMIT",
            Self::BudgetsUnavailable => "BUDGETS_UNAVAILABLE",
            Self::InvalidSession => "INVALID_SESSION",
        }
    }
}
