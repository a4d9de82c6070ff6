//! Access rules for agents and tools: CEL conditions, compiled on write, evaluated
//! first-match and fail-closed (SPEC section 4).
//!
//! Write path: [`validate_rules`] (or [`RuleSet::compile`]). Request path: build a
//! [`PreparedContext`] once per decision from a [`RequestContext`], then
//! [`RuleSet::evaluate`] for the agent and each tool ([`PreparedContext::set_tool_id`]
//! between tools). Admin dry run: [`dry_run`]. Bounds: [`limits`].

mod compile;
mod context;
mod diagnostics;
mod evaluate;
pub mod limits;
mod rule;

pub use compile::rule_set::RuleSet;
pub use compile::validate_rules;
pub use compile::worker::pool_size as compile_pool_size;
pub use context::prepared::PreparedContext;
pub use context::{AccountContext, RequestContext, RequestInfo, UserContext};
pub use diagnostics::{ContextError, ContextJsonError, RuleError};
pub use evaluate::decision::{Decision, EvalError, ReasonCode};
pub use evaluate::dry_run::{DryRun, dry_run};
pub use evaluate::{RuleOutcome, RuleResult};
pub use rule::{AccessRule, Effect};
