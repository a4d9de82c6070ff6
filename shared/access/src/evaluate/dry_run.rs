//! `/access/evaluate`: compile and evaluate a rule list against a context without
//! storing anything, for admins writing rules.

use crate::compile::rule_set::RuleSet;
use crate::context::RequestContext;
use crate::context::prepared::PreparedContext;
use crate::diagnostics::{ContextError, RuleError};
use crate::evaluate::RuleOutcome;
use crate::evaluate::decision::Decision;
use crate::limits::MAX_DRY_RUN_CHARS;
use crate::rule::AccessRule;
use serde::Serialize;

/// The answer of a dry run: either problems, or the decision with per-rule detail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", tag = "status")]
pub enum DryRun {
    /// The rule list does not compile (paths relative to the list).
    InvalidRules {
        /// Every problem found.
        errors: Vec<RuleError>,
    },
    /// The context breaks a limit (paths relative to the context).
    InvalidContext {
        /// Every problem found.
        errors: Vec<ContextError>,
    },
    /// The decision, and what each rule gave, in evaluation order.
    Evaluated {
        /// The decision the rules make on the context.
        decision: Decision,
        /// Every rule's result, the ones after the deciding rule included.
        rules: Vec<RuleOutcome>,
    },
}

/// Compiles `rules` and evaluates them against `context`; stores nothing. At most
/// [`MAX_DRY_RUN_CHARS`] characters of conditions per call: the work one request may
/// ask for.
pub fn dry_run(rules: &[AccessRule], context: &RequestContext) -> DryRun {
    let chars: usize =
        rules.iter().filter_map(|r| r.condition.as_deref()).map(|c| c.chars().count()).sum();
    if chars > MAX_DRY_RUN_CHARS {
        return DryRun::InvalidRules {
            errors: vec![RuleError {
                path: String::new(),
                message: format!(
                    "{chars} characters of conditions, at most {MAX_DRY_RUN_CHARS} per dry run; try fewer rules at a time"
                ),
            }],
        };
    }
    let set = match RuleSet::compile(rules) {
        Ok(set) => set,
        Err(errors) => return DryRun::InvalidRules { errors },
    };
    let prepared = match PreparedContext::new(context) {
        Ok(p) => p,
        Err(errors) => return DryRun::InvalidContext { errors },
    };
    let (decision, rules) = set.explain(&prepared);
    DryRun::Evaluated { decision, rules }
}
