//! What a gateway does with a call: let it through, or answer a denial of one of the
//! kinds gateways tell apart (agentgateway's `AuthorizationError` codes).

use registry_core::ToolDefinition;
use registry_policy::{CallDecision, Reason, Refusal, Refused, Stage};

/// A gateway's answer for one `tools/call`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Let the call through (also when log-only rules would deny it).
    Allow,
    /// Answer the denial instead; the tool is never called.
    Deny(Denial),
}

/// A call the gateway refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// Which kind of refusal.
    pub kind: DenialKind,
    /// The deciding rule, when a rule denied.
    pub rule_id: Option<String>,
    /// Why, in one line a client or a model may read (a rule's description and id, the
    /// limit, or why nothing could decide); nothing internal.
    pub reason: String,
}

/// The kinds of refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DenialKind {
    /// Not permitted: a rule, the tool's lifecycle, no principal, a tool the registry
    /// does not know, or nothing could decide (fail closed).
    Denied,
    /// A session budget or a rate is spent (stage `limit`).
    Exhausted,
    /// The call is malformed or its arguments do not match the tool's schema.
    Invalid,
}

impl Verdict {
    /// The verdict for what `decide` decided about a call of `tool`.
    pub(crate) fn of(decided: &CallDecision, tool: &ToolDefinition) -> Self {
        if decided.is_allowed() {
            return Self::Allow;
        }
        let kind = match (decided.stage, decided.reason) {
            (Stage::Limit, Reason::Limit) => DenialKind::Exhausted,
            _ => DenialKind::Denied,
        };
        Self::Deny(Denial {
            kind,
            rule_id: decided.rule_id.clone(),
            reason: decided.why(tool).unwrap_or_default(),
        })
    }

    /// The verdict for a refusal before any rule decided.
    pub(crate) fn refused(refused: &Refused) -> Self {
        let kind = match refused.refusal {
            Refusal::InvalidArguments => DenialKind::Invalid,
            _ => DenialKind::Denied,
        };
        Self::Deny(Denial { kind, rule_id: None, reason: refused.refusal.why().to_owned() })
    }
}
