//! Compiling one condition: length, SQL-isms, syntax, declared variables, static
//! bounds, then instrumenting comprehensions with the budget guard, charging growing
//! and scanning operations and flattening field paths.

pub(crate) mod ast;
mod bounds;
pub(crate) mod declared;
mod flatten;
pub(crate) mod lexer;
pub(crate) mod rule_set;
mod sql;
pub(crate) mod worker;

use crate::call::schema::CallSchema;
use crate::diagnostics::position;
use crate::evaluate::budget;
use crate::evaluate::charged;
use crate::evaluate::env;
use crate::evaluate::regex_cache;
use crate::limits::{MAX_BRACKET_NESTING, MAX_CACHED_CONDITIONS, MAX_CONDITION_CHARS};
use cel::common::ast::IdedExpr;
use std::sync::LazyLock;
use worker::Failure;

/// A condition ready for the interpreter: its AST, comprehensions wrapped in the
/// budget guard, growing and scanning operations charged, field paths flattened.
#[derive(Debug, Clone)]
pub(crate) struct Condition {
    /// The instrumented AST.
    pub expr: IdedExpr,
    /// Whether it reads `session` (a call rule over the session so far).
    pub reads_session: bool,
    /// Its compiled form, when all of it is in the compiled subset (`compiled`).
    pub compiled: Option<crate::compiled::Program>,
}

const SYNTAX_HINT: &str = "hint: CEL uses `==` for equality, `&&`/`||`/`!` for logic, quoted strings ('text'), lists in [..]";

/// What compiling one condition gave.
type Compiled = Result<Condition, Vec<String>>;

/// Which list a rule is in: the variables its conditions may use differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RuleKind {
    /// `accessRules`: `user`, `customData`, `account`, `request`.
    Access,
    /// `callRules`: the same, and `call`.
    Call,
}

impl RuleKind {
    /// The cache key of `source` compiled for this kind.
    fn key(self, source: &str) -> String {
        match self {
            RuleKind::Access => source.to_owned(),
            RuleKind::Call => format!("\u{0}call\u{0}{source}"),
        }
    }
}

/// Compiled conditions by their text, shared by every caller: a condition is compiled
/// once, whoever sends it (errors included). Bounded: when full, the entry least worth
/// keeping makes room (decision 81).
static CACHE: LazyLock<quick_cache::sync::Cache<String, Compiled>> =
    LazyLock::new(|| quick_cache::sync::Cache::new(MAX_CACHED_CONDITIONS));

fn cached(source: &str) -> Option<Compiled> {
    CACHE.get(source)
}

fn remember(source: String, compiled: Compiled) {
    CACHE.insert(source, compiled);
}

/// Compiles every present condition of a rule list; `None` where a rule has none.
/// Conditions compiled before (by anyone) come from the cache; the others are
/// compiled on the compile pool (see `worker`): the generated parser recurses deeply,
/// and running out of stack aborts the process rather than failing.
pub(crate) fn conditions(sources: Vec<Option<String>>, kind: RuleKind) -> Vec<Option<Compiled>> {
    let mut out: Vec<Option<Compiled>> = Vec::with_capacity(sources.len());
    let mut missing = Vec::new();
    for (i, source) in sources.into_iter().enumerate() {
        match source {
            None => out.push(None),
            Some(text) => match cached(&kind.key(&text)) {
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
    for ((i, text), compiled) in missing.into_iter().zip(compile_on_pool(texts, kind)) {
        if !matches!(&compiled, Err(messages) if messages.iter().any(|m| m.contains("try again"))) {
            remember(kind.key(&text), compiled.clone());
        }
        out[i] = Some(compiled);
    }
    out
}

/// Compiles `sources` on the compile pool.
fn compile_on_pool(sources: Vec<String>, kind: RuleKind) -> Vec<Compiled> {
    let count = sources.len();
    let compiled = worker::on_big_stack(move || {
        sources.iter().map(|s| condition(s, kind)).collect::<Vec<_>>()
    });
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
fn condition(source: &str, kind: RuleKind) -> Result<Condition, Vec<String>> {
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
    let mut problems = declared::check(&expr, &info, kind);
    problems.extend(bounds::check(&expr));
    problems.extend(pattern_problems(&expr, &info));
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut next_id = max_id(&expr) + 1;
    budget::instrument(&mut expr, &mut next_id);
    flatten::flatten(&mut expr);
    charged::instrument(&mut expr);
    let reads_session = kind == RuleKind::Call && reads(&expr, "session");
    let compiled = crate::compiled::Program::of(&expr);
    Ok(Condition { expr, reads_session, compiled })
}

/// Whether `expr` reads the variable `name` (or a field path on it, once flattened).
fn reads(expr: &IdedExpr, name: &str) -> bool {
    match &expr.expr {
        cel::common::ast::Expr::Ident(id) => {
            id == name || id.strip_prefix(name).is_some_and(|rest| rest.starts_with('.'))
        }
        _ => ast::children(expr).into_iter().any(|c| reads(c, name)),
    }
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

/// The problems of each condition (compiled before, without errors) against the
/// tool's schema (unknown arguments and functions, comparisons of the wrong type), and
/// the running totals (`<function>.<argument>`) it reads.
pub(crate) fn schema_problems(
    sources: Vec<String>,
    schema: &CallSchema,
) -> Vec<(Vec<String>, Vec<String>)> {
    let count = sources.len();
    let schema = schema.clone();
    let checked = worker::on_big_stack(move || {
        sources
            .iter()
            .map(|s| match env::env().parser().parse_with_source_info(s) {
                Ok((expr, info)) => crate::call::check::check(&expr, &info, &schema),
                Err(_) => (Vec::new(), Vec::new()),
            })
            .collect::<Vec<_>>()
    });
    match checked {
        Ok(problems) => problems,
        Err(e) => {
            let why = match e {
                Failure::Panicked => "the condition cannot be parsed".to_string(),
                Failure::Unavailable(e) => format!("not checked, try again: {e}"),
            };
            vec![
                (vec![format!("condition not checked against the schema: {why}")], Vec::new());
                count
            ]
        }
    }
}

fn max_id(expr: &IdedExpr) -> u64 {
    ast::children(expr).into_iter().map(max_id).fold(expr.id, u64::max)
}

/// Checks a rule list on write: syntax, declared variables, SQL-isms, limits.
pub fn validate_rules(rules: &[crate::rule::AccessRule]) -> Vec<crate::diagnostics::RuleError> {
    rule_set::RuleSet::compile(rules).err().unwrap_or_default()
}

/// Checks a tool's call rules on write: everything [`validate_rules`] checks, with
/// `call` declared, and every reference to an argument or function, and every
/// comparison of an argument with a literal, checked against `schema`.
pub fn validate_call_rules(
    rules: &[crate::rule::AccessRule],
    schema: &CallSchema,
) -> Vec<crate::diagnostics::RuleError> {
    rule_set::RuleSet::compile_call(rules, std::sync::Arc::new(schema.clone()))
        .err()
        .unwrap_or_default()
}
