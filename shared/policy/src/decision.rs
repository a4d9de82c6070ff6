//! The one answer every enforcement point gets: [`CallDecision`].

use registry_access::{
    AccessRule, Decision, DecisionPoint, Effect, LogOnlyOutcome, Outcome, ReasonCode, RuleOutcome,
    WouldBe,
};
use registry_core::ToolDefinition;
use registry_core::session::SessionState;
use serde::Serialize;

use crate::stage::{Reason, Stage};

/// Every rule's result, when asked (`?explain=true`).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizeTrace {
    /// The access decision.
    pub access: Decision,
    /// Each access rule's result, in evaluation order.
    pub access_rules: Vec<RuleOutcome>,
    /// The call decision, when the access rules allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<Decision>,
    /// Each call rule's result, in evaluation order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub call_rules: Vec<RuleOutcome>,
}

/// What [`decide`](crate::decide) decided for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallDecision {
    /// Allow or deny.
    pub effect: Effect,
    /// The effect, or what log-only rules would have made it (`would-deny`).
    pub outcome: Outcome,
    /// Which check decided.
    pub stage: Stage,
    /// Why.
    pub reason: Reason,
    /// The deciding rule's id, when a rule decided.
    pub rule_id: Option<String>,
    /// The log-only rules reached, with what each gave.
    pub log_only: Vec<LogOnlyOutcome>,
    /// What the decision would have been with the log-only rules enforced, when that
    /// differs.
    pub would_be: Option<WouldBe>,
    /// The limit that refused the call (`maxToolCalls`, `rateLimit`, `contention`...).
    pub limit: Option<&'static str>,
    /// Why, in one line, at stage `limit`.
    pub message: Option<String>,
    /// The session after an admitted call that counted in one.
    pub session: Option<SessionState>,
    /// Every rule's result, when asked; `None` at stage `lifecycle`.
    pub trace: Option<AuthorizeTrace>,
}

impl CallDecision {
    /// What the rules `decision` decided at `stage` (`access` or `call`).
    pub(crate) fn of_rules(stage: Stage, decision: &Decision) -> Self {
        Self {
            effect: decision.effect,
            outcome: decision.outcome(),
            stage,
            reason: Reason::Rules(decision.reason),
            rule_id: decision.rule_id.as_deref().map(str::to_owned),
            log_only: decision.log_only.clone(),
            would_be: decision.would_be.clone(),
            limit: None,
            message: None,
            session: None,
            trace: None,
        }
    }

    /// A denial at `stage` for `reason` that no rule made.
    pub fn refused(stage: Stage, reason: Reason, message: Option<String>) -> Self {
        Self {
            effect: Effect::Deny,
            outcome: Outcome::Deny,
            stage,
            reason,
            rule_id: None,
            log_only: Vec::new(),
            would_be: None,
            limit: None,
            message,
            session: None,
            trace: None,
        }
    }

    /// Whether the call may go on.
    pub fn is_allowed(&self) -> bool {
        self.effect == Effect::Allow
    }

    /// The reason code `point` answers and logs.
    pub fn reason_code(&self, point: DecisionPoint) -> &'static str {
        self.reason.code(point)
    }

    /// Why the call is refused, as the model may read it (nothing internal); `None`
    /// when it is allowed. A rule's denial names the rule's description and id.
    pub fn why(&self, tool: &ToolDefinition) -> Option<String> {
        if self.is_allowed() {
            return None;
        }
        Some(match (self.stage, self.reason) {
            (Stage::Lifecycle, _) => "the tool is switched off in the registry".to_owned(),
            (Stage::Grant, _) => {
                "the tool is not granted to this session's agent for this principal".to_owned()
            }
            (Stage::Access, _) => format!(
                "the tool is not granted to this principal: {}",
                self.why_rules(tool.access_rules.as_deref().unwrap_or_default())
            ),
            (Stage::Call, _) => self.why_rules(tool.call_rules.as_deref().unwrap_or_default()),
            (Stage::Limit, Reason::Limit) => {
                format!("{}; the budget is spent", self.message.as_deref().unwrap_or_default())
            }
            (Stage::Limit, Reason::InvalidSession) => "the session's id is not valid".to_owned(),
            (Stage::Limit, _) => "the session's budget cannot be checked right now".to_owned(),
        })
    }

    /// Why the rules (`rules`, those of the deciding stage) denied: the deciding rule's
    /// description and id, or what kept them from allowing.
    fn why_rules(&self, rules: &[AccessRule]) -> String {
        match (self.reason, self.rule_id.as_deref()) {
            (Reason::Rules(ReasonCode::RuleMatch), Some(id)) => {
                let rule = rules.iter().find(|r| r.id.as_deref() == Some(id));
                match rule.and_then(|r| r.description.as_deref()) {
                    Some(description) => format!("{description} (rule `{id}`)"),
                    None => format!("denied by rule `{id}`"),
                }
            }
            (Reason::Rules(ReasonCode::Error), Some(id)) => {
                format!("rule `{id}` could not be checked")
            }
            (Reason::Rules(ReasonCode::Error), None) => "a rule could not be checked".to_owned(),
            _ => "no rule allows it".to_owned(),
        }
    }
}
