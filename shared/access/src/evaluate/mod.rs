//! First-match, fail-closed evaluation of a compiled rule list (SPEC section 4).

pub(crate) mod budget;
pub(crate) mod charged;
pub(crate) mod decision;
pub(crate) mod dry_run;
pub(crate) mod env;
pub(crate) mod regex_cache;

use crate::call::prepared::{CallValues, ToolCall, WithCall};
use crate::call::schema::CallSchema;
use crate::call::session::{SessionKeys, SessionView};
use crate::compile::Condition;
use crate::compile::rule_set::{CompiledRule, RuleSet};
use crate::compiled::source::Source;
use crate::context::prepared::PreparedContext;
use crate::evaluate::decision::{Decision, EvalError, LogOnlyOutcome, ReasonCode, WouldBe};
use crate::limits::{DECISION_BYTE_BUDGET, DECISION_STEP_BUDGET};
use crate::rule::{Effect, RuleMode};
use cel::common::types::CelBool;
use cel::context::VariableResolver;
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
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleOutcome {
    /// Position in the list as written.
    pub rule_index: usize,
    /// The rule's id, when it has one.
    #[schema(value_type = Option<String>)]
    pub rule_id: Option<Arc<str>>,
    /// The rule's `order`.
    pub order: Option<i64>,
    /// The rule's effect.
    pub effect: Effect,
    /// The rule's mode.
    #[serde(default, skip_serializing_if = "RuleMode::is_enforce")]
    pub mode: RuleMode,
    /// What its condition gave.
    #[serde(flatten)]
    pub result: RuleResult,
    /// Whether this rule decided (never a log-only rule).
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

/// Which evaluator answers a condition. The decision is the same either way; tests
/// compare the two (`tests/differential.rs`).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// The compiled form where a condition has one and it is certain, else the
    /// interpreter (what every decision uses).
    Compiled,
    /// The interpreter alone.
    Interpreter,
}

/// The state of one decision: the budgets left, and the interpreter's context,
/// built when the first condition runs.
struct Run<'a> {
    resolver: &'a dyn VariableResolver,
    /// The same variables, read by the compiled form.
    source: &'a dyn Source,
    engine: Engine,
    /// Conditions the compiled form answered.
    compiled: usize,
    steps: u64,
    /// Bytes of values the interpreter may still produce (`charged.rs`).
    bytes: u64,
    cel: Option<Context<'a, 'a>>,
}

impl<'a> Run<'a> {
    fn new(resolver: &'a dyn VariableResolver, source: &'a dyn Source, engine: Engine) -> Self {
        Self {
            resolver,
            source,
            engine,
            compiled: 0,
            steps: DECISION_STEP_BUDGET,
            bytes: DECISION_BYTE_BUDGET,
            cel: None,
        }
    }

    /// What `condition` gives, charged to this decision's budgets: from its compiled
    /// form when that is certain, else from the interpreter.
    fn condition(&mut self, condition: Option<&'a Condition>) -> RuleResult {
        let Some(condition) = condition else {
            return RuleResult::Matched;
        };
        if let (Engine::Compiled, Some(program)) = (self.engine, &condition.compiled)
            && let Some(matched) = program.run(self.source, &mut self.steps)
        {
            self.compiled += 1;
            return if matched { RuleResult::Matched } else { RuleResult::NotMatched };
        }
        let resolver = self.resolver;
        let cel = self.cel.get_or_insert_with(|| {
            let mut cel = Context::with_env(Arc::clone(env::env()));
            cel.set_variable_resolver(resolver);
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

/// Whether one rule's result decides (SPEC section 4 step 3 and rule 5), and why.
fn decides(rule: &CompiledRule, result: &RuleResult) -> Option<ReasonCode> {
    match (result, rule.effect) {
        (RuleResult::Matched, _) => Some(ReasonCode::RuleMatch),
        (RuleResult::NotMatched, _) => None,
        // errors never widen access: an erroring deny matches, an erroring allow does not
        (RuleResult::Error(_), Effect::Deny) => Some(ReasonCode::Error),
        (RuleResult::Error(_), Effect::Allow) => None,
    }
}

/// A decision made by `rule` (or by the default, with `None`).
fn decision(decided: Option<(&CompiledRule, ReasonCode)>, errors: Vec<EvalError>) -> Decision {
    let (effect, reason, rule) = match decided {
        Some((rule, reason)) => (rule.effect, reason, Some(rule)),
        None => (Effect::Deny, ReasonCode::NoMatch, None),
    };
    Decision {
        effect,
        reason,
        rule_index: rule.map(|r| r.index),
        rule_order: rule.and_then(|r| r.order),
        rule_id: rule.and_then(|r| r.id.clone()),
        errors,
        log_only: Vec::new(),
        would_be: None,
    }
}

impl RuleSet {
    /// Decides access for `ctx`: first match by `order`, default deny, fail-closed;
    /// log-only rules reported, never deciding (SPEC section 15).
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

    /// Decides one call of a tool with its call rules (compiled with
    /// [`RuleSet::compile_call`]): the arguments typed by the tool's schema; `session`
    /// rules see an empty session.
    pub fn evaluate_call(&self, ctx: &PreparedContext<'_>, call: &ToolCall<'_>) -> Decision {
        self.call_inner(ctx, call, SessionView::default(), None)
    }

    /// [`RuleSet::evaluate_call`] with the session so far (SPEC section 19).
    pub fn evaluate_call_in(
        &self,
        ctx: &PreparedContext<'_>,
        call: &ToolCall<'_>,
        session: SessionView<'_>,
    ) -> Decision {
        self.call_inner(ctx, call, session, None)
    }

    /// [`RuleSet::explain_call`] with the session so far.
    pub fn explain_call_in(
        &self,
        ctx: &PreparedContext<'_>,
        call: &ToolCall<'_>,
        session: SessionView<'_>,
    ) -> (Decision, Vec<RuleOutcome>) {
        let mut outcomes = Vec::with_capacity(self.rules.len());
        let decision = self.call_inner(ctx, call, session, Some(&mut outcomes));
        (decision, outcomes)
    }

    /// [`RuleSet::evaluate_call`] with every rule's result.
    pub fn explain_call(
        &self,
        ctx: &PreparedContext<'_>,
        call: &ToolCall<'_>,
    ) -> (Decision, Vec<RuleOutcome>) {
        self.explain_call_in(ctx, call, SessionView::default())
    }

    /// [`RuleSet::explain`] (with `call`: [`RuleSet::explain_call_in`]) on `engine`,
    /// and how many conditions the compiled form answered. For the tests that hold the
    /// compiled form to the interpreter.
    #[doc(hidden)]
    pub fn explain_on(
        &self,
        ctx: &PreparedContext<'_>,
        call: Option<(&ToolCall<'_>, SessionView<'_>)>,
        engine: Engine,
    ) -> (Decision, Vec<RuleOutcome>, usize) {
        let mut outcomes = Vec::with_capacity(self.rules.len());
        let mut compiled = 0;
        let counted = (engine, &mut compiled);
        let decision = match call {
            Some((call, session)) => self.call_on(ctx, call, session, Some(&mut outcomes), counted),
            None => self.walk(ctx, ctx, Some(&mut outcomes), counted),
        };
        (decision, outcomes, compiled)
    }

    fn call_inner(
        &self,
        ctx: &PreparedContext<'_>,
        call: &ToolCall<'_>,
        session: SessionView<'_>,
        outcomes: Option<&mut Vec<RuleOutcome>>,
    ) -> Decision {
        self.call_on(ctx, call, session, outcomes, (Engine::Compiled, &mut 0))
    }

    fn call_on(
        &self,
        ctx: &PreparedContext<'_>,
        call: &ToolCall<'_>,
        session: SessionView<'_>,
        outcomes: Option<&mut Vec<RuleOutcome>>,
        engine: (Engine, &mut usize),
    ) -> Decision {
        let empty = CallSchema::new();
        let schema = self.schema.as_deref().unwrap_or(&empty);
        let keys = SessionKeys { functions: &self.functions, totals: &self.totals };
        let resolver = WithCall { ctx, call: CallValues::new(call, schema), session, keys };
        self.walk(&resolver, &resolver, outcomes, engine)
    }

    fn evaluate_inner(
        &self,
        ctx: &PreparedContext<'_>,
        outcomes: Option<&mut Vec<RuleOutcome>>,
    ) -> Decision {
        self.walk(ctx, ctx, outcomes, (Engine::Compiled, &mut 0))
    }

    /// The rules in evaluation order until the enforced ones decide: the enforced rules
    /// decide; log-only rules reached on the way are evaluated and reported, and the
    /// decision they would have made with all rules enforced is kept when it differs.
    /// `engine` says which evaluator answers, and counts what the compiled form answered.
    fn walk(
        &self,
        resolver: &dyn VariableResolver,
        source: &dyn Source,
        mut outcomes: Option<&mut Vec<RuleOutcome>>,
        (engine, compiled): (Engine, &mut usize),
    ) -> Decision {
        if self.rules.is_empty() {
            return Decision::new(Effect::Allow, ReasonCode::NoRules);
        }
        let mut run = Run::new(resolver, source, engine);
        let mut errors = Vec::new();
        let mut log_only = Vec::new();
        let mut decided: Option<(&CompiledRule, ReasonCode)> = None;
        let mut would: Option<(&CompiledRule, ReasonCode)> = None;
        for rule in &self.rules {
            let result = run.condition(rule.condition.as_ref());
            let mut decisive = false;
            if decided.is_none() {
                let reason = decides(rule, &result);
                match rule.mode {
                    RuleMode::Enforce => {
                        if let RuleResult::Error(message) = &result {
                            errors.push(EvalError {
                                rule_index: rule.index,
                                message: message.clone(),
                            });
                        }
                        if let Some(reason) = reason {
                            decided = Some((rule, reason));
                            would = would.or(Some((rule, reason)));
                            decisive = true;
                        }
                    }
                    RuleMode::LogOnly => {
                        let would_decide = would.is_none() && reason.is_some();
                        if let (true, Some(reason)) = (would_decide, reason) {
                            would = Some((rule, reason));
                        }
                        log_only.push(LogOnlyOutcome {
                            rule_index: rule.index,
                            rule_id: rule.id.clone(),
                            effect: rule.effect,
                            result: result.clone(),
                            would_decide,
                        });
                    }
                }
            }
            match outcomes.as_deref_mut() {
                Some(list) => list.push(RuleOutcome {
                    rule_index: rule.index,
                    rule_id: rule.id.clone(),
                    order: rule.order,
                    effect: rule.effect,
                    mode: rule.mode,
                    result,
                    decisive,
                }),
                None if decisive => break,
                None => {}
            }
        }
        let enforced = self.rules.iter().any(|r| r.mode == RuleMode::Enforce);
        let mut out = match decided {
            Some(_) => decision(decided, errors),
            None if !enforced => Decision {
                reason: ReasonCode::NoRules,
                effect: Effect::Allow,
                ..decision(None, errors)
            },
            None => decision(None, errors),
        };
        if self.has_log_only {
            let would_be = decision(would, Vec::new());
            if would_be.effect != out.effect {
                out.would_be = Some(WouldBe {
                    effect: would_be.effect,
                    reason: would_be.reason,
                    rule_index: would_be.rule_index,
                    rule_id: would_be.rule_id,
                });
            }
            out.log_only = log_only;
        }
        *compiled = run.compiled;
        out
    }
}
