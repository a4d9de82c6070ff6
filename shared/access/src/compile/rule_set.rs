//! A compiled rule list: every condition compiled once, rules sorted in evaluation
//! order (SPEC section 4 step 2). Cheap to share: wrap it in an `Arc`.

use crate::compile::{self, Condition};
use crate::diagnostics::RuleError;
use crate::limits::{MAX_DESCRIPTION_CHARS, MAX_RULES};
use crate::rule::{AccessRule, Effect};

/// One rule, compiled.
#[derive(Debug, Clone)]
pub(crate) struct CompiledRule {
    /// Position in the list as written.
    pub index: usize,
    /// The rule's `order`.
    pub order: Option<i64>,
    /// Effect when it matches.
    pub effect: Effect,
    /// `None`: always matches.
    pub condition: Option<Condition>,
}

/// A rule list compiled and sorted for evaluation (`Send + Sync`).
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    pub(crate) rules: Vec<CompiledRule>,
}

impl RuleSet {
    /// Compiles `rules`, or returns every problem found, located relative to the list.
    pub fn compile(rules: &[AccessRule]) -> Result<RuleSet, Vec<RuleError>> {
        let mut errors = Vec::new();
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
        let conditions = compile::conditions(sources);
        for ((index, rule), condition) in rules.iter().enumerate().zip(conditions) {
            for field in rule.unknown.keys() {
                errors.push(RuleError::at(
                    index,
                    field,
                    format!(
                        "unknown field `{field}`; a rule has condition, effect, order, description"
                    ),
                ));
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
                    Ok(c) => Some(c),
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
                condition,
            });
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        // stable sort: ties keep list position; unordered rules after all ordered ones
        compiled.sort_by_key(|r| (r.order.is_none(), r.order));
        Ok(RuleSet { rules: compiled })
    }

    /// Number of rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether there are no rules (every decision is then `NO_RULES`, allow).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Positions (in the list as written) in evaluation order.
    pub fn evaluation_order(&self) -> Vec<usize> {
        self.rules.iter().map(|r| r.index).collect()
    }
}
