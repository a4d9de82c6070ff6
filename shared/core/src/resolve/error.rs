//! Why an agent could not be resolved for a caller.

use registry_access::{ContextError, Decision};

use crate::resolve::trace::{AgentOutcome, AgentTrace};

/// The agent itself is not served to this caller (its tools and collaborators are
/// left out individually instead, and named in the trace).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResolveError {
    /// No live agent with that id.
    #[error("agent `{agent_id}` not found")]
    NotFound {
        /// The id asked for.
        agent_id: String,
    },
    /// The agent's access rules deny the caller.
    #[error("access to agent `{}` denied ({})", .trace.agent_id, .decision.reason.as_str())]
    Denied {
        /// The deciding access decision.
        decision: Box<Decision>,
        /// The trace up to the decision.
        trace: Box<AgentTrace>,
    },
    /// Lifecycle (`disabled`, `retired`) or rollout leaves the caller out.
    #[error("agent `{}` is not available ({})", .trace.agent_id, .trace.outcome.as_str())]
    NotAvailable {
        /// The trace: `outcome` is `DISABLED`, `RETIRED` or `NOT_AVAILABLE` (see `rollout`).
        trace: Box<AgentTrace>,
    },
    /// The request context breaks a limit (paths relative to the context).
    #[error("invalid request context: {} problem(s)", .0.len())]
    InvalidContext(Vec<ContextError>),
    /// The agent's stored rules do not compile (stale or corrupt data): fail closed.
    #[error("agent `{agent_id}` cannot be used: {message}")]
    InvalidRules {
        /// The agent.
        agent_id: String,
        /// What the compiler said.
        message: String,
    },
}

impl ResolveError {
    /// The trace, for `Denied` and `NotAvailable`.
    pub fn trace(&self) -> Option<&AgentTrace> {
        match self {
            Self::Denied { trace, .. } | Self::NotAvailable { trace } => Some(trace),
            _ => None,
        }
    }

    /// The outcome recorded for the agent, for `Denied` and `NotAvailable`.
    pub fn outcome(&self) -> Option<AgentOutcome> {
        self.trace().map(|t| t.outcome)
    }
}
