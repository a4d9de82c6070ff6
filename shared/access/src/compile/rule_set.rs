//! A compiled rule list: every condition compiled once, rules sorted in evaluation
//! order (SPEC section 4 step 2). Cheap to share: wrap it in an `Arc`.

use crate::call::schema::CallSchema;
use crate::compile::{self, Condition, RuleKind};
use crate::diagnostics::RuleError;
use crate::limits::{MAX_DESCRIPTION_CHARS, MAX_RULES};
use crate::rule::{AccessRule, Effect, RuleMode};
use std::sync::Arc;

/// One rule, compiled.
#[derive(Debug, Clone)]
pub(crate) struct CompiledRule {
    /// Position in the list as written.
    pub index: usize,
    /// The rule's `order`.
    pub order: Option<i64>,
    /// Effect when it matches.
    pub effect: Effect,
    /// The rule's id.
    pub id: Option<Arc<str>>,
    /// Enforced or log-only.
    pub mode: RuleMode,
    /// `None`: always matches.
    pub condition: Option<Condition>,
}

/// A rule list compiled and sorted for evaluation (`Send + Sync`).
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    pub(crate) rules: Vec<CompiledRule>,
    /// For call rules: the tool's schema, which types the arguments.
    pub(crate) schema: Option<Arc<CallSchema>>,
    /// Whether any rule is log-only.
    pub(crate) has_log_only: bool,
    /// The running totals (`<function>.<argument>`) call rules read, sorted.
    pub(crate) totals: Vec<String>,
    /// The schema's function names, sorted (the keys of `session.callsOf`).
    pub(crate) functions: Vec<String>,
}

/// Whether `id` is a valid rule id: `^[a-z0-9][a-z0-9-]{0,62}$`.
pub fn is_rule_id(id: &str) -> bool {
    let b = id.as_bytes();
    (1..=63).contains(&b.len())
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
}

impl RuleSet {
    /// Compiles access rules, or returns every problem found, located relative to the
    /// list.
    pub fn compile(rules: &[AccessRule]) -> Result<RuleSet, Vec<RuleError>> {
        Self::compile_kind(rules, RuleKind::Access, None)
    }

    /// Compiles a tool's call rules against its schema (`call` declared, arguments and
    /// functions checked), or returns every problem found.
    pub fn compile_call(
        rules: &[AccessRule],
        schema: Arc<CallSchema>,
    ) -> Result<RuleSet, Vec<RuleError>> {
        Self::compile_kind(rules, RuleKind::Call, Some(schema))
    }

    fn compile_kind(
        rules: &[AccessRule],
        kind: RuleKind,
        schema: Option<Arc<CallSchema>>,
    ) -> Result<RuleSet, Vec<RuleError>> {
        let mut errors = Vec::new();
        let mut totals: Vec<String> = Vec::new();
        if rules.len() > MAX_RULES {
            errors.push(RuleError {
                path: String::new(),
                message: format!("{} rules, at most {MAX_RULES}", rules.len()),
            });
        }
        let mut compiled = Vec::with_capacity(rules.len());
        // past the limit, the count error is enough: don't spend time compiling the rest
        let sources = rules
            .iter()
            .enumerate()
            .map(|(i, r)| r.condition.clone().filter(|_| i < MAX_RULES))
            .collect();
        let conditions = compile::conditions(sources, kind);
        let mut checked = Vec::new();
        for ((index, rule), condition) in rules.iter().enumerate().zip(conditions) {
            for field in rule.unknown.keys() {
                errors.push(RuleError::at(
                    index,
                    field,
                    format!(
                        "unknown field `{field}`; a rule has id, condition, effect, order, mode, description"
                    ),
                ));
            }
            if let Some(id) = &rule.id {
                if !is_rule_id(id) {
                    errors.push(RuleError::at(
                        index,
                        "id",
                        format!("`{id}` is not a rule id: 1 to 63 of a-z, 0-9 and -, starting with a letter or digit"),
                    ));
                } else if rules[..index].iter().any(|r| r.id.as_ref() == Some(id)) {
                    errors.push(RuleError::at(
                        index,
                        "id",
                        format!("`{id}` is used by an earlier rule; ids are unique in a list"),
                    ));
                }
            }
            if let Some(d) = &rule.description {
                let chars = d.chars().count();
                if chars > MAX_DESCRIPTION_CHARS {
                    errors.push(RuleError::at(
                        index,
                        "description",
                        format!("description is {chars} characters long, at most {MAX_DESCRIPTION_CHARS}"),
                    ));
                }
            }
            let condition = match condition {
                None => None,
                Some(result) => match result {
                    Ok(c) => {
                        if let (Some(_), Some(text)) = (&schema, &rule.condition) {
                            checked.push((index, text.clone()));
                        }
                        Some(c)
                    }
                    Err(messages) => {
                        errors.extend(
                            messages.into_iter().map(|m| RuleError::at(index, "condition", m)),
                        );
                        None
                    }
                },
            };
            compiled.push(CompiledRule {
                index,
                order: rule.order,
                effect: rule.effect,
                id: rule.id.as_deref().map(Arc::from),
                mode: rule.mode,
                condition,
            });
        }
        if let Some(schema) = &schema
            && !checked.is_empty()
        {
            let (indexes, texts): (Vec<usize>, Vec<String>) = checked.into_iter().unzip();
            for (index, (problems, read)) in
                indexes.into_iter().zip(compile::schema_problems(texts, schema))
            {
                errors.extend(problems.into_iter().map(|m| RuleError::at(index, "condition", m)));
                totals.extend(read);
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        // stable sort: ties keep list position; unordered rules after all ordered ones
        compiled.sort_by_key(|r| (r.order.is_none(), r.order));
        let has_log_only = compiled.iter().any(|r| r.mode == RuleMode::LogOnly);
        totals.sort_unstable();
        totals.dedup();
        let functions = schema.as_deref().map(CallSchema::function_list).unwrap_or_default();
        Ok(RuleSet { rules: compiled, schema, has_log_only, totals, functions })
    }

    /// Number of rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether there are no rules (every decision is then `NO_RULES`, allow).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The running totals (`<function>.<argument>`) the call rules read through
    /// `session.total`, which the session state must keep.
    pub fn session_totals(&self) -> &[String] {
        &self.totals
    }

    /// Whether any rule reads `session`.
    pub fn reads_session(&self) -> bool {
        self.rules.iter().any(|r| r.condition.as_ref().is_some_and(|c| c.reads_session))
    }

    /// Whether `decision` (made by these rules) may depend on the session: a rule read
    /// before the decision was reached (the deciding one included) reads `session`.
    pub fn decided_on_session(&self, decision: &crate::Decision) -> bool {
        let reads = |r: &CompiledRule| r.condition.as_ref().is_some_and(|c| c.reads_session);
        for rule in &self.rules {
            if reads(rule) {
                return true;
            }
            if decision.rule_index == Some(rule.index) {
                return false;
            }
        }
        false
    }

    /// Positions (in the list as written) in evaluation order.
    pub fn evaluation_order(&self) -> Vec<usize> {
        self.rules.iter().map(|r| r.index).collect()
    }
}
