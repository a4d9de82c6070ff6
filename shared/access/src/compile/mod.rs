//! Compiling one condition: length, SQL-isms, syntax, declared variables, static
//! bounds, then instrumenting comprehensions with the budget guard, charging growing
//! and scanning operations and flattening field paths.

pub(crate) mod ast;
mod bounds;
mod declared;
mod flatten;
pub(crate) mod lexer;
pub(crate) mod rule_set;
mod sql;
pub(crate) mod worker;

use crate::diagnostics::position;
use crate::evaluate::budget;
use crate::evaluate::charged;
use crate::evaluate::env;
use crate::evaluate::regex_cache;
use crate::limits::{MAX_BRACKET_NESTING, MAX_CACHED_CONDITIONS, MAX_CONDITION_CHARS};
use cel::common::ast::IdedExpr;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use worker::Failure;

/// A condition ready for the interpreter: its AST, comprehensions wrapped in the
/// budget guard, growing and scanning operations charged, field paths flattened.
#[derive(Debug, Clone)]
pub(crate) struct Condition {
    /// The instrumented AST.
    pub expr: IdedExpr,
}

const SYNTAX_HINT: &str = "hint: CEL uses `==` for equality, `&&`/`||`/`!` for logic, quoted strings ('text'), lists in [..]";

/// What compiling one condition gave.
type Compiled = Result<Condition, Vec<String>>;

/// Compiled conditions by their text, shared by every caller: a condition is compiled
/// once, whoever sends it (errors included). Bounded: emptied when full.
static CACHE: LazyLock<Mutex<HashMap<String, Compiled>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn cached(source: &str) -> Option<Compiled> {
    CACHE.lock().ok().and_then(|c| c.get(source).cloned())
}

fn remember(source: String, compiled: Compiled) {
    if let Ok(mut cache) = CACHE.lock() {
        if cache.len() >= MAX_CACHED_CONDITIONS {
            cache.clear();
        }
        cache.insert(source, compiled);
    }
}

/// Compiles every present condition of a rule list; `None` where a rule has none.
/// Conditions compiled before (by anyone) come from the cache; the others are
/// compiled on the compile pool (see `worker`): the generated parser recurses deeply,
/// and running out of stack aborts the process rather than failing.
pub(crate) fn conditions(sources: Vec<Option<String>>) -> Vec<Option<Compiled>> {
    let mut out: Vec<Option<Compiled>> = Vec::with_capacity(sources.len());
    let mut missing = Vec::new();
    for (i, source) in sources.into_iter().enumerate() {
        match source {
            None => out.push(None),
            Some(text) => match cached(&text) {
                Some(hit) => out.push(Some(hit)),
                None => {
                    out.push(None);
                    missing.push((i, text));
                }
            },
        }
    }
    if missing.is_empty() {
        return out;
    }
    let texts: Vec<String> = missing.iter().map(|(_, t)| t.clone()).collect();
    for ((i, text), compiled) in missing.into_iter().zip(compile_on_pool(texts)) {
        if !matches!(&compiled, Err(messages) if messages.iter().any(|m| m.contains("try again"))) {
            remember(text, compiled.clone());
        }
        out[i] = Some(compiled);
    }
    out
}

/// Compiles `sources` on the compile pool.
fn compile_on_pool(sources: Vec<String>) -> Vec<Compiled> {
    let count = sources.len();
    let compiled =
        worker::on_big_stack(move || sources.iter().map(|s| condition(s)).collect::<Vec<_>>());
    match compiled {
        Ok(results) => results,
        Err(Failure::Panicked) => {
            vec![
                Err(vec![format!("syntax error: condition cannot be parsed; {SYNTAX_HINT}")]);
                count
            ]
        }
        Err(Failure::Unavailable(e)) => {
            vec![Err(vec![format!("condition not compiled, try again: {e}")]); count]
        }
    }
}

/// Compiles `source`, or returns every problem found, each message starting with
/// `line:column` where a position applies. Needs a large stack: see [`conditions`].
fn condition(source: &str) -> Result<Condition, Vec<String>> {
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
    let (nesting, at) = lexer::max_bracket_depth(source);
    if nesting > MAX_BRACKET_NESTING {
        return Err(vec![format!(
            "{}: brackets nested {nesting} deep, at most {MAX_BRACKET_NESTING}; flatten the condition",
            position::describe(source, at)
        )]);
    }
    let (mut expr, info) = match env::env().parser().parse_with_source_info(source) {
        Ok(parsed) => parsed,
        Err(errors) => {
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
    };
    let mut problems = declared::check(&expr, &info);
    problems.extend(bounds::check(&expr));
    problems.extend(pattern_problems(&expr, &info));
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut next_id = max_id(&expr) + 1;
    budget::instrument(&mut expr, &mut next_id);
    flatten::flatten(&mut expr);
    charged::instrument(&mut expr);
    Ok(Condition { expr })
}

/// `matches()` patterns must be string literals that compile within the size limit: a
/// pattern from request data would let a caller choose the work, and an invalid one
/// would only fail at run time. The compile work of one condition's patterns is bounded
/// too ([`crate::limits::MAX_CONDITION_PATTERN_BYTES`]).
fn pattern_problems(expr: &IdedExpr, info: &cel::common::ast::SourceInfo) -> Vec<String> {
    let mut found = Vec::new();
    charged::patterns(expr, &mut found);
    let at = |id: u64| {
        ast::offset(info, id)
            .map(|offset| position::describe(&info.source, offset))
            .unwrap_or_else(|| "1:1".into())
    };
    let mut work = 0;
    found
        .into_iter()
        .filter_map(|(id, pattern)| match pattern {
            None => Some(format!(
                "{}: the pattern of matches() must be a string literal ('^a+$'); patterns from request data are refused",
                at(id)
            )),
            Some(_) if work > crate::limits::MAX_CONDITION_PATTERN_BYTES => Some(format!(
                "{}: the patterns of this condition compile to more than {} MiB in all; use fewer or simpler patterns",
                at(id),
                crate::limits::MAX_CONDITION_PATTERN_BYTES >> 20
            )),
            Some(p) => {
                let checked = regex_cache::check(&p);
                work += checked.work;
                checked
                    .problem
                    .map(|why| format!("{}: invalid regular expression '{p}': {why}", at(id)))
            }
        })
        .collect()
}

fn max_id(expr: &IdedExpr) -> u64 {
    ast::children(expr).into_iter().map(max_id).fold(expr.id, u64::max)
}

/// Checks a rule list on write: syntax, declared variables, SQL-isms, limits.
pub fn validate_rules(rules: &[crate::rule::AccessRule]) -> Vec<crate::diagnostics::RuleError> {
    rule_set::RuleSet::compile(rules).err().unwrap_or_default()
}
