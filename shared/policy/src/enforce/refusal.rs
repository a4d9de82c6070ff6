//! Why a point refuses a call before (or instead of) a rule deciding it: one code per
//! cause, as every point logs it, and the one line a model or client may read. Each
//! transport turns it into its own answer (the guard a Bedrock `FAILURE`, a gateway a
//! denial).

/// Why a call was refused before (or instead of) a rule deciding it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The guard has no configuration (tool id, keys; in remote mode also a token the
    /// registry refuses).
    NotConfigured,
    /// The event carries no signed principal context.
    NoSignedContext,
    /// The principal token is malformed, forged, altered, of another algorithm, signed by
    /// a key not in the registry's key set, of another issuer or audience, or its context
    /// is over the limits (the decision line's message names which).
    InvalidSignedContext,
    /// The signed context has expired.
    ExpiredSignedContext,
    /// The token is bound to another session (`sid`) than the event's `sessionId`: a
    /// token replayed into another session.
    SessionMismatch,
    /// No rules could be read and none are cached.
    RulesUnavailable,
    /// The rules could not be re-read and the cached ones are past the staleness bound.
    RulesStale,
    /// The registry has the tool `disabled` or `retired`.
    ToolSwitchedOff,
    /// The registry has no live tool of that id (a gateway's unknown tool; the guard of
    /// a tool Lambda logs its own missing tool as `RULES_UNAVAILABLE`).
    UnknownTool,
    /// A gateway's call carries no principal (no bearer token, no claims).
    NoPrincipal,
    /// The arguments do not decode against the tool's schema (the answer names them).
    InvalidArguments,
    /// The session's counts could not be read or written (budgets fail closed).
    BudgetsUnavailable,
    /// The call would count in a session whose `sessionId` is not one Bedrock makes
    /// (2 to 100 characters of `[0-9a-zA-Z._:-]`).
    InvalidSession,
    /// Remote mode: the registry was not reached within the timeout, or failed.
    RegistryUnavailable,
    /// Remote mode: the registry refused the request for another reason than the
    /// principal token or the call's arguments (e.g. an agent that does not use the tool).
    RegistryRefused,
}

impl Refusal {
    /// The decision log's `reason`.
    pub fn code(self) -> &'static str {
        match self {
            Self::NotConfigured => "GUARD_NOT_CONFIGURED",
            Self::NoSignedContext => "NO_SIGNED_CONTEXT",
            Self::InvalidSignedContext => "INVALID_SIGNED_CONTEXT",
            Self::ExpiredSignedContext => "EXPIRED_SIGNED_CONTEXT",
            Self::SessionMismatch => "SESSION_MISMATCH",
            Self::RulesUnavailable => "RULES_UNAVAILABLE",
            Self::RulesStale => "RULES_STALE",
            Self::ToolSwitchedOff => "TOOL_SWITCHED_OFF",
            Self::UnknownTool => "UNKNOWN_TOOL",
            Self::NoPrincipal => "NO_PRINCIPAL",
            Self::InvalidArguments => "INVALID_ARGUMENTS",
            Self::BudgetsUnavailable => "BUDGETS_UNAVAILABLE",
            Self::InvalidSession => "INVALID_SESSION",
            Self::RegistryUnavailable => "REGISTRY_UNAVAILABLE",
            Self::RegistryRefused => "REGISTRY_REFUSED",
        }
    }

    /// Why, as the model reads it: nothing internal.
    pub fn why(self) -> &'static str {
        match self {
            Self::NotConfigured => "the tool's call policy is not configured",
            Self::NoSignedContext => "the session carries no registry principal context",
            Self::InvalidSignedContext => "the session's registry principal context is not valid",
            Self::ExpiredSignedContext => {
                "the session's registry principal context has expired; resolve the agent again"
            }
            Self::SessionMismatch => {
                "the session's registry principal context belongs to another session"
            }
            Self::RulesUnavailable | Self::RulesStale => {
                "the tool's call policy cannot be read right now"
            }
            Self::ToolSwitchedOff => "the tool is switched off in the registry",
            Self::UnknownTool => "the registry has no such tool",
            Self::NoPrincipal => "the request carries no principal",
            Self::InvalidArguments => "the arguments are invalid",
            Self::BudgetsUnavailable => "the session's budget cannot be checked right now",
            Self::InvalidSession => "the session's id is not valid",
            Self::RegistryUnavailable => "the tool's call policy cannot be checked right now",
            Self::RegistryRefused => "the registry refused to decide the call",
        }
    }
}
