//! First-match, fail-closed evaluation of a compiled rule list (SPEC section 4).

pub(crate) mod budget;
pub(crate) mod charged;
pub(crate) mod decision;
pub(crate) mod dry_run;
pub(crate) mod env;
pub(crate) mod regex_cache;

use crate::compile::Condition;
use crate::compile::rule_set::{CompiledRule, RuleSet};
use crate::context::prepared::PreparedContext;
use crate::evaluate::decision::{Decision, EvalError, ReasonCode};
use crate::limits::{DECISION_BYTE_BUDGET, DECISION_STEP_BUDGET};
use crate::rule::Effect;
use cel::common::types::CelBool;
use cel::{Context, ExecutionError, Value};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What one rule's condition gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", tag = "result", content = "error")]
pub enum RuleResult {
    /// Absent or `true`.
    Matched,
    /// `false`.
    NotMatched,
    /// Failed to evaluate, or returned a non-bool (the message).
    Error(String),
}

/// Per-rule detail of a dry run, in evaluation order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleOutcome {
    /// Position in the list as written.
    pub rule_index: usize,
    /// The rule's `order`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<i64>,
    /// The rule's effect.
    pub effect: Effect,
    /// What its condition gave.
    #[serde(flatten)]
    pub result: RuleResult,
    /// Whether this rule decided.
    pub decisive: bool,
}

/// One condition on the interpreter.
pub(crate) fn interpret(condition: &Condition, ctx: &Context<'_, '_>) -> RuleResult {
    match Value::resolve_val(&condition.expr, ctx) {
        Ok(v) => match v.downcast_ref::<CelBool>() {
            Some(b) if *b.inner() => RuleResult::Matched,
            Some(_) => RuleResult::NotMatched,
            None => RuleResult::Error(format!(
                "condition returned {} instead of bool",
                v.get_type().name()
            )),
        },
        // a flattened field path (`user.email`) that the context lacks
        Err(ExecutionError::UndeclaredReference(name)) if name.contains('.') => {
            RuleResult::Error(format!("no such field in the context: {name}"))
        }
        Err(e) => RuleResult::Error(error_message(&e)),
    }
}

/// The interpreter's error as text that names value types, never values: the same
/// text for the same condition and context shape (a map's entries print in hash
/// order), and no context data echoed into an explanation.
fn error_message(e: &ExecutionError) -> String {
    match e {
        ExecutionError::UnsupportedTargetType { target } => {
            format!("invalid argument type: {}", target.type_of())
        }
        ExecutionError::NotSupportedAsMethod { method, target } => {
            format!("method '{method}' not supported on type {}", target.type_of())
        }
        ExecutionError::UnsupportedKeyType(v) => {
            format!("unable to use a {} as a key", v.type_of())
        }
        ExecutionError::ValuesNotComparable(a, b) => {
            format!("{} can not be compared to {}", a.type_of(), b.type_of())
        }
        ExecutionError::UnsupportedBinaryOperator(op, a, b) => {
            format!("unsupported binary operator '{op}': {}, {}", a.type_of(), b.type_of())
        }
        ExecutionError::UnsupportedIndex(i, v) => {
            format!("cannot use a {} to index a {}", i.type_of(), v.type_of())
        }
        ExecutionError::DivisionByZero(_) => "division by zero".to_owned(),
        ExecutionError::RemainderByZero(_) => "remainder by zero".to_owned(),
        ExecutionError::Overflow(op, a, b) => {
            format!("overflow from binary operator '{op}': {}, {}", a.type_of(), b.type_of())
        }
        ExecutionError::DuplicateKey(v) => format!("repeated key of type {}", v.type_of()),
        other => other.to_string(),
    }
}

/// The state of one decision: the budgets left, and the interpreter's context,
/// built when the first condition runs.
struct Run<'a> {
    ctx: &'a PreparedContext<'a>,
    steps: u64,
    /// Bytes of values the interpreter may still produce (`charged.rs`).
    bytes: u64,
    cel: Option<Context<'a, 'a>>,
}

impl<'a> Run<'a> {
    fn new(ctx: &'a PreparedContext<'a>) -> Self {
        Self { ctx, steps: DECISION_STEP_BUDGET, bytes: DECISION_BYTE_BUDGET, cel: None }
    }

    /// What `condition` gives on the interpreter, charged to this decision's budgets.
    fn condition(&mut self, condition: Option<&'a Condition>) -> RuleResult {
        let Some(condition) = condition else {
            return RuleResult::Matched;
        };
        let ctx = self.ctx;
        let cel = self.cel.get_or_insert_with(|| {
            let mut cel = Context::with_env(Arc::clone(env::env()));
            cel.set_variable_resolver(ctx);
            cel
        });
        budget::set(self.steps);
        charged::set(self.bytes);
        let result = interpret(condition, cel);
        self.steps = budget::left();
        self.bytes = charged::left();
        result
    }
}

/// Folds one rule's result into the decision; `Some` when it decides.
fn decide(
    rule: &CompiledRule,
    result: &RuleResult,
    errors: &mut Vec<EvalError>,
) -> Option<ReasonCode> {
    match (result, rule.effect) {
        (RuleResult::Matched, _) => Some(ReasonCode::RuleMatch),
        (RuleResult::NotMatched, _) => None,
        (RuleResult::Error(message), effect) => {
            errors.push(EvalError { rule_index: rule.index, message: message.clone() });
            // errors never widen access: an erroring deny matches, an erroring allow does not
            (effect == Effect::Deny).then_some(ReasonCode::Error)
        }
    }
}

impl RuleSet {
    /// Decides access for `ctx`: first match by `order`, default deny, fail-closed.
    pub fn evaluate(&self, ctx: &PreparedContext<'_>) -> Decision {
        self.evaluate_inner(ctx, None)
    }

    /// Like [`RuleSet::evaluate`], and also evaluates every rule after the deciding
    /// one (same budget) to report each rule's result.
    pub fn explain(&self, ctx: &PreparedContext<'_>) -> (Decision, Vec<RuleOutcome>) {
        let mut outcomes = Vec::with_capacity(self.rules.len());
        let decision = self.evaluate_inner(ctx, Some(&mut outcomes));
        (decision, outcomes)
    }

    fn evaluate_inner(
        &self,
        ctx: &PreparedContext<'_>,
        mut outcomes: Option<&mut Vec<RuleOutcome>>,
    ) -> Decision {
        if self.rules.is_empty() {
            return Decision {
                effect: Effect::Allow,
                reason: ReasonCode::NoRules,
                rule_index: None,
                rule_order: None,
                errors: Vec::new(),
            };
        }
        let mut run = Run::new(ctx);
        let mut errors = Vec::new();
        let mut decided: Option<(&CompiledRule, ReasonCode)> = None;
        for rule in &self.rules {
            let result = run.condition(rule.condition.as_ref());
            let decisive = match decided {
                Some(_) => false,
                None => match decide(rule, &result, &mut errors) {
                    Some(reason) => {
                        decided = Some((rule, reason));
                        true
                    }
                    None => false,
                },
            };
            match outcomes.as_deref_mut() {
                Some(list) => list.push(RuleOutcome {
                    rule_index: rule.index,
                    order: rule.order,
                    effect: rule.effect,
                    result,
                    decisive,
                }),
                None if decisive => break,
                None => {}
            }
        }
        match decided {
            Some((rule, reason)) => Decision {
                effect: rule.effect,
                reason,
                rule_index: Some(rule.index),
                rule_order: rule.order,
                errors,
            },
            None => Decision {
                effect: Effect::Deny,
                reason: ReasonCode::NoMatch,
                rule_index: None,
                rule_order: None,
                errors,
            },
        }
    }
}
