#![doc = include_str!("../README.md")]

mod call;
mod compile;
mod compiled;
mod context;
mod diagnostics;
mod evaluate;
pub mod limits;
pub mod record;
mod rule;

pub use call::prepared::ToolCall;
pub use call::schema::{ArgType, CallSchema};
pub use call::session::SessionView;
pub use compile::rule_set::{RuleSet, is_rule_id};
pub use compile::worker::pool_size as compile_pool_size;
pub use compile::{validate_call_rules, validate_rules};
pub use context::prepared::PreparedContext;
pub use context::{AccountContext, RequestContext, RequestInfo, UserContext};
pub use diagnostics::{ContextError, ContextJsonError, RuleError};
pub use evaluate::decision::{Decision, EvalError, LogOnlyOutcome, Outcome, ReasonCode, WouldBe};
pub use evaluate::dry_run::{DryRun, dry_run};
pub use evaluate::{Engine, RuleOutcome, RuleResult};
pub use record::{DecisionPoint, DecisionRecord, Listing};
pub use rule::{AccessRule, Effect, RuleMode};
