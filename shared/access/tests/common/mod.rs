//! What the rule-engine checks share: a condition's outcome as the SPEC reads it, from
//! the registry and from the unmodified `cel` crate.

use registry_access::{AccessRule, Engine, PreparedContext, RuleResult, RuleSet};
use serde_json::json;
use std::sync::LazyLock;

/// What a condition gave, as the SPEC reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// `true`.
    Matched,
    /// `false`.
    NotMatched,
    /// Anything else: an error, or a value that is not a `bool`.
    Error,
}

/// The `cel` crate's standard environment, as it comes (the registry's adds only its
/// cost accounting).
static REFERENCE_ENV: LazyLock<cel::Env> = LazyLock::new(cel::Env::stdlib);

/// The registry's outcome for `condition` as an allow rule, or `None` when its write
/// checks refuse the condition.
pub fn registry(condition: &str, context: &PreparedContext<'_>) -> Option<Outcome> {
    registry_traced(condition, context).map(|(outcome, _)| outcome)
}

/// [`registry`], and whether the condition's compiled form gave the outcome (rather than
/// the interpreter).
pub fn registry_traced(condition: &str, context: &PreparedContext<'_>) -> Option<(Outcome, bool)> {
    let rule: AccessRule =
        serde_json::from_value(json!({"condition": condition, "effect": "allow"})).ok()?;
    let rules = RuleSet::compile(&[rule]).ok()?;
    let (_, outcomes, compiled) = rules.explain_on(context, None, Engine::Compiled);
    let outcome = match &outcomes.first()?.result {
        RuleResult::Matched => Outcome::Matched,
        RuleResult::NotMatched => Outcome::NotMatched,
        RuleResult::Error(_) => Outcome::Error,
    };
    Some((outcome, compiled > 0))
}

/// The unmodified `cel` crate's outcome for `condition` in `context`, or `None` when it
/// cannot parse the text.
pub fn reference(condition: &str, context: &cel::Context<'_, '_>) -> Option<Outcome> {
    let program = REFERENCE_ENV.compile(condition).ok()?;
    Some(match program.execute(context) {
        Ok(cel::Value::Bool(true)) => Outcome::Matched,
        Ok(cel::Value::Bool(false)) => Outcome::NotMatched,
        Ok(_) | Err(_) => Outcome::Error,
    })
}
