//! Access rules for agents and tools: CEL conditions, compiled on write, evaluated
//! first-match and fail-closed (SPEC section 4).
//!
//! Write path: [`validate_rules`] (or [`RuleSet::compile`]). Request path: build a
//! [`PreparedContext`] once per decision from a [`RequestContext`], then
//! [`RuleSet::evaluate`] for the agent and each tool ([`PreparedContext::set_tool_id`]
//! between tools). Admin dry run: [`dry_run`]. Bounds: [`limits`].

mod ast;
mod bounds;
mod budget;
mod charged;
mod compile;
mod context;
mod context_json;
mod decision;
mod declared;
mod dry_run;
mod env;
mod error;
mod evaluate;
#[cfg(test)]
mod fast_equivalence;
mod fast_eval;
mod flatten;
mod lexer;
pub mod limits;
mod limits_check;
mod lower;
mod node;
mod position;
mod prepared;
mod regex_cache;
mod rule;
mod rule_set;
mod sql;
mod validate;
mod value;
mod worker;

pub use context::{AccountContext, RequestContext, RequestInfo, UserContext};
pub use decision::{Decision, EvalError, ReasonCode};
pub use dry_run::{DryRun, dry_run};
pub use error::{ContextError, ContextJsonError, RuleError};
pub use evaluate::{RuleOutcome, RuleResult};
pub use prepared::PreparedContext;
pub use rule::{AccessRule, Effect};
pub use rule_set::RuleSet;
pub use validate::validate_rules;
pub use worker::pool_size as compile_pool_size;
