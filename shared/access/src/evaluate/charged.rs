//! The memory and scanning half of the cost model: every interpreter operation that
//! makes a value grow or reads a value whole is replaced, on the compiled AST, by a
//! charged twin (names no condition can spell):
//!
//! | written | runs as | charges |
//! | --- | --- | --- |
//! | `a + b` | `@add(a, b)` | the bytes of the result (strings, bytes, lists, maps) |
//! | `s.contains(t)`, `startsWith`, `endsWith` | `@contains(s, t)`, ... | a step per 64 bytes scanned |
//! | `size(x)`, `x.size()` | `@size(x)` | a step per 64 bytes of a string |
//! | `s.matches('re')` | `@matches(s, 're')` | steps for the bytes matched times the pattern's size |
//!
//! `map` and `filter` build their result with `+`, so they are charged too. Bytes come
//! from a per-decision allowance ([`DECISION_BYTE_BUDGET`]) and steps from the step
//! budget of `budget.rs`; running out of either is a run-time error, hence fail-closed.
//! Patterns must be string literals, checked and compiled on write, then compiled once
//! per process into a bounded cache (`regex_cache.rs`).

use crate::evaluate::budget;
use crate::evaluate::regex_cache;
use crate::limits::{DECISION_BYTE_BUDGET, SCAN_BYTES_PER_STEP};
use cel::ExecutionError;
use cel::common::ast::{Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelBool, CelBytes, CelInt, CelList, CelMap, CelString};
use cel::common::value::{CowVal, Val};
use std::cell::Cell;

/// The charged twins, by the name they replace.
const TWINS: [(&str, &str); 6] = [
    ("_+_", ADD),
    ("contains", CONTAINS),
    ("startsWith", STARTS_WITH),
    ("endsWith", ENDS_WITH),
    ("size", SIZE),
    ("matches", MATCHES),
];

/// Suffix of a twin's member form, whose last argument is the target.
pub(crate) const MEMBER: &str = "/m";

/// `a + b`, charged.
pub(crate) const ADD: &str = "@add";
/// `s.contains(t)`, charged.
pub(crate) const CONTAINS: &str = "@contains";
/// `s.startsWith(t)`, charged.
pub(crate) const STARTS_WITH: &str = "@startsWith";
/// `s.endsWith(t)`, charged.
pub(crate) const ENDS_WITH: &str = "@endsWith";
/// `size(x)`, charged.
pub(crate) const SIZE: &str = "@size";
/// `s.matches('re')`, charged, with the compiled pattern from the cache.
pub(crate) const MATCHES: &str = "@matches";

thread_local! {
    static BYTES_LEFT: Cell<u64> = const { Cell::new(DECISION_BYTE_BUDGET) };
}

/// Sets the bytes left for the conditions the interpreter runs next.
pub(crate) fn set(bytes: u64) {
    BYTES_LEFT.with(|b| b.set(bytes));
}

/// The bytes left after the interpreter ran.
pub(crate) fn left() -> u64 {
    BYTES_LEFT.with(Cell::get)
}

fn over_bytes() -> ExecutionError {
    ExecutionError::function_error(
        "budget",
        format!(
            "evaluation memory budget exceeded ({DECISION_BYTE_BUDGET} bytes of values produced per decision)"
        ),
    )
}

fn charge_bytes(bytes: u64) -> Result<(), ExecutionError> {
    let left = left();
    if bytes > left {
        set(0);
        return Err(over_bytes());
    }
    set(left - bytes);
    Ok(())
}

/// Steps to scan `bytes` bytes.
pub(crate) fn scan_steps(bytes: usize) -> u64 {
    (bytes as u64) / SCAN_BYTES_PER_STEP + 1
}

/// The bytes a value holds, counted up to `cap` (past it the exact figure is moot).
fn weight(value: &dyn Val, cap: u64) -> u64 {
    const HEADER: u64 = 24;
    if value.downcast_ref::<CelInt>().is_some() || value.downcast_ref::<CelBool>().is_some() {
        return 0;
    }
    if let Some(s) = value.downcast_ref::<CelString>() {
        return HEADER + s.inner().len() as u64;
    }
    if let Some(b) = value.downcast_ref::<CelBytes>() {
        return HEADER + b.inner().len() as u64;
    }
    let mut total = HEADER;
    if let Some(list) = value.downcast_ref::<CelList>() {
        for item in list.inner() {
            total = total.saturating_add(weight(item.as_ref(), cap));
            if total > cap {
                break;
            }
        }
    } else if let Some(map) = value.downcast_ref::<CelMap>() {
        for item in map.inner().values() {
            total = total.saturating_add(HEADER + weight(item.as_ref(), cap));
            if total > cap {
                break;
            }
        }
    }
    total
}

fn two<'b, 'v>(
    args: Vec<CowVal<'b, 'v>>,
) -> Result<(CowVal<'b, 'v>, CowVal<'b, 'v>), ExecutionError> {
    let mut args = args.into_iter();
    match (args.next(), args.next()) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(ExecutionError::invalid_argument_count(2, 0)),
    }
}

fn strings<'a>(
    name: &str,
    a: &'a dyn Val,
    b: &'a dyn Val,
) -> Result<(&'a str, &'a str), ExecutionError> {
    match (a.downcast_ref::<CelString>(), b.downcast_ref::<CelString>()) {
        (Some(a), Some(b)) => Ok((a.inner(), b.inner())),
        _ => Err(ExecutionError::function_error(
            name,
            format!("expects two strings, got {} and {}", a.get_type().name(), b.get_type().name()),
        )),
    }
}

/// `@add(a, b)`: `a + b`, charging the bytes of the result.
pub(crate) fn add<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (lhs, rhs) = two(args)?;
    let sum = lhs
        .as_adder()
        .ok_or_else(|| {
            ExecutionError::function_error(
                "add",
                format!("no such overload: {} + {}", lhs.get_type().name(), rhs.get_type().name()),
            )
        })?
        .add(rhs.as_ref())?
        .into_owned();
    charge_bytes(weight(sum.as_ref(), left().saturating_add(1)))?;
    Ok(CowVal::Owned(sum))
}

fn scan<'b, 'v>(
    name: &str,
    args: Vec<CowVal<'b, 'v>>,
    test: fn(&str, &str) -> bool,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (a, b) = two(args)?;
    let (a, b) = strings(name, a.as_ref(), b.as_ref())?;
    budget::charge(scan_steps(a.len() + b.len()))?;
    Ok(CowVal::Owned(Box::new(CelBool::from(test(a, b)))))
}

/// `@contains(s, t)`.
pub(crate) fn contains<'b, 'v>(
    args: Vec<CowVal<'b, 'v>>,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    scan("contains", args, |a, b| a.contains(b))
}

/// `@startsWith(s, t)`.
pub(crate) fn starts_with<'b, 'v>(
    args: Vec<CowVal<'b, 'v>>,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    scan("startsWith", args, |a, b| a.starts_with(b))
}

/// `@endsWith(s, t)`.
pub(crate) fn ends_with<'b, 'v>(
    args: Vec<CowVal<'b, 'v>>,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    scan("endsWith", args, |a, b| a.ends_with(b))
}

/// A twin's member form: its arguments with the target (last) moved first.
pub(crate) fn member<'b, 'v>(
    twin: fn(Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError>,
    mut args: Vec<CowVal<'b, 'v>>,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    if let Some(target) = args.pop() {
        args.insert(0, target);
    }
    twin(args)
}

/// Member forms of the twins (`s.contains(t)` as `@contains/m(t, s)`).
pub(crate) fn contains_m<'b, 'v>(a: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    member(contains, a)
}
/// See [`contains_m`].
pub(crate) fn starts_with_m<'b, 'v>(
    a: Vec<CowVal<'b, 'v>>,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    member(starts_with, a)
}
/// See [`contains_m`].
pub(crate) fn ends_with_m<'b, 'v>(
    a: Vec<CowVal<'b, 'v>>,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    member(ends_with, a)
}
/// See [`contains_m`].
pub(crate) fn size_m<'b, 'v>(a: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    member(size, a)
}
/// See [`contains_m`].
pub(crate) fn matches_m<'b, 'v>(a: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    member(matches, a)
}

/// `@size(x)`: code points of a string, bytes of bytes, entries of a list or map.
pub(crate) fn size<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let Some(value) = args.into_iter().next() else {
        return Err(ExecutionError::invalid_argument_count(1, 0));
    };
    let n = if let Some(s) = value.downcast_ref::<CelString>() {
        budget::charge(scan_steps(s.inner().len()))?;
        s.inner().chars().count()
    } else if let Some(b) = value.downcast_ref::<CelBytes>() {
        b.inner().len()
    } else if let Some(sizer) = value.as_sizer() {
        return Ok(CowVal::Owned(Box::new(sizer.size())));
    } else {
        return Err(ExecutionError::function_error(
            "size",
            format!("no size for {}", value.get_type().name()),
        ));
    };
    Ok(CowVal::Owned(Box::new(CelInt::from(i64::try_from(n).unwrap_or(i64::MAX)))))
}

/// `@matches(s, 're')`: the cached compiled pattern, steps for the bytes matched times
/// the size of the pattern.
pub(crate) fn matches<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (s, pattern) = two(args)?;
    let (s, pattern) = strings("matches", s.as_ref(), pattern.as_ref())?;
    budget::charge(scan_steps(s.len()).saturating_mul(regex_cache::weight(pattern)))?;
    let regex = regex_cache::get(pattern)
        .map_err(|e| ExecutionError::function_error("matches", e.to_string()))?;
    Ok(CowVal::Owned(Box::new(CelBool::from(regex.is_match(s)))))
}

/// Replaces every growing or scanning operation of `expr` by its charged twin. A
/// member call (`s.contains(t)`) becomes the twin's member form (`@contains/m(t, s)`):
/// the interpreter evaluates a method's arguments before its target, and so must the
/// twin, for errors and charges to come in the same order.
pub(crate) fn instrument(expr: &mut IdedExpr) {
    if let Expr::Call(call) = &mut expr.expr
        && let Some((_, twin)) = TWINS.iter().find(|(name, _)| *name == call.func_name)
    {
        call.func_name = match call.target.take() {
            Some(target) => {
                call.args.push(*target);
                format!("{twin}{MEMBER}")
            }
            None => (*twin).to_owned(),
        };
    }
    for child in budget::children_mut(expr) {
        instrument(child);
    }
}

/// The literal pattern of every `matches` call in `expr`, with the node id of the call,
/// or the id of a call whose pattern is not a string literal.
pub(crate) fn patterns(expr: &IdedExpr, out: &mut Vec<(u64, Option<String>)>) {
    if let Expr::Call(call) = &expr.expr
        && call.func_name == "matches"
    {
        let pattern = match (&call.target, call.args.as_slice()) {
            (Some(_), [p]) | (None, [_, p]) => match &p.expr {
                Expr::Literal(LiteralValue::String(s)) => Some(s.to_string()),
                _ => None,
            },
            _ => None,
        };
        out.push((expr.id, pattern));
    }
    for child in crate::compile::ast::children(expr) {
        patterns(child, out);
    }
}
