//! Compiling one condition: length, SQL-isms, syntax, declared variables, static
//! bounds, then instrumenting comprehensions with the budget guard.

use crate::limits::MAX_CONDITION_CHARS;
use crate::{bounds, budget, declared, env, flatten, sql};
use cel::common::ast::IdedExpr;

/// A condition ready to evaluate: its instrumented AST and source.
#[derive(Debug, Clone)]
pub(crate) struct Condition {
    /// The AST, comprehensions wrapped in the budget guard.
    pub expr: IdedExpr,
}

const SYNTAX_HINT: &str = "hint: CEL uses `==` for equality, `&&`/`||`/`!` for logic, quoted strings ('text'), lists in [..]";

/// Compiles `source`, or returns every problem found, each message starting with
/// `line:column` where a position applies.
pub(crate) fn condition(source: &str) -> Result<Condition, Vec<String>> {
    let chars = source.chars().count();
    if chars > MAX_CONDITION_CHARS {
        return Err(vec![format!(
            "condition is {chars} characters long, at most {MAX_CONDITION_CHARS}; split it into several rules"
        )]);
    }
    if source.trim().is_empty() {
        return Err(vec![
            "condition is empty; omit `condition` for a rule that always matches".to_string(),
        ]);
    }
    if let Some(finding) = sql::detect(source) {
        return Err(vec![finding.message(source)]);
    }
    let parsed = std::panic::catch_unwind(|| env::env().parser().parse_with_source_info(source));
    let (mut expr, info) = match parsed {
        Ok(Ok(parsed)) => parsed,
        Ok(Err(errors)) => {
            return Err(errors
                .errors
                .iter()
                .map(|e| {
                    format!(
                        "{}:{}: syntax error: {}; {SYNTAX_HINT}",
                        e.pos.0.max(1),
                        e.pos.1.max(1),
                        e.msg.trim_start_matches("Syntax error: ")
                    )
                })
                .collect());
        }
        Err(_) => {
            return Err(vec![format!("syntax error: condition cannot be parsed; {SYNTAX_HINT}")]);
        }
    };
    let mut problems = declared::check(&expr, &info);
    problems.extend(bounds::check(&expr));
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut next_id = max_id(&expr) + 1;
    budget::instrument(&mut expr, &mut next_id);
    flatten::flatten(&mut expr);
    Ok(Condition { expr })
}

fn max_id(expr: &IdedExpr) -> u64 {
    crate::ast::children(expr).into_iter().map(max_id).fold(expr.id, u64::max)
}
