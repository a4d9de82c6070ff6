//! The run-time step budget of one decision.
//!
//! Every comprehension of a compiled condition gets its range wrapped in a call to
//! `@cost(range, weight)` (a name no condition can spell), where `weight` is the
//! number of AST nodes of its loop body. Before the loop runs, `@cost` charges
//! `size(range) * weight` steps to the current decision; when the budget is spent it
//! fails, which is a run-time error, hence fail-closed. Evaluation is synchronous, so
//! for the interpreter the budget lives in a thread-local, set from the decision's
//! counter before a condition runs and read back after.
//!
//! The guard also fixes the order a comprehension walks a map in: the `cel` crate walks
//! a map's keys in its hash table's order, which differs from one map to the next, so
//! that which of two erring elements gives the error (or the order of a `map` over a
//! map) would change from run to run. `@cost` hands the comprehension the map's keys
//! as a list in ascending key order instead (decision 97): one of the orders the
//! unmodified crate may take, always the same one.

use crate::compile::ast;
use crate::limits::DECISION_STEP_BUDGET;
use cel::ExecutionError;
use cel::common::ast::{CallExpr, Expr, IdedExpr, LiteralValue, MapExpr, StructExpr};
use cel::common::types::{CelInt, CelList, CelMap};
use cel::common::value::{CowVal, Val};
use std::cell::Cell;

/// Name of the guard function injected around comprehension ranges.
pub(crate) const GUARD: &str = "@cost";

thread_local! {
    static STEPS_LEFT: Cell<u64> = const { Cell::new(DECISION_STEP_BUDGET) };
}

/// Sets the steps left for the conditions the interpreter runs next.
pub(crate) fn set(steps: u64) {
    STEPS_LEFT.with(|s| s.set(steps));
}

/// The steps left after the interpreter ran.
pub(crate) fn left() -> u64 {
    STEPS_LEFT.with(Cell::get)
}

/// Takes `steps` from the current decision's budget; over budget is an error.
pub(crate) fn charge(steps: u64) -> Result<(), ExecutionError> {
    let left = STEPS_LEFT.with(Cell::get);
    if steps > left {
        STEPS_LEFT.with(|s| s.set(0));
        return Err(ExecutionError::function_error(
            "budget",
            format!("evaluation cost budget exceeded ({DECISION_STEP_BUDGET} steps per decision)"),
        ));
    }
    STEPS_LEFT.with(|s| s.set(left - steps));
    Ok(())
}

/// The `@cost(range, weight)` overload: charges `size(range) * weight`, returns `range`
/// (a map as the list of its keys in ascending order).
pub(crate) fn guard<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut args = args.into_iter();
    let (Some(range), Some(weight)) = (args.next(), args.next()) else {
        return Err(ExecutionError::invalid_argument_count(2, 0));
    };
    let weight =
        weight.downcast_ref::<CelInt>().map_or(1, |w| u64::try_from(*w.inner()).unwrap_or(1));
    let size = range.as_sizer().map_or(0, |s| u64::try_from(*s.size().inner()).unwrap_or(0));
    charge(size.saturating_mul(weight).max(1))?;
    Ok(in_key_order(range))
}

/// `range` as a comprehension walks it: a map becomes the list of its keys, ascending
/// (in the order `cel`'s own `Ord` for keys gives: by kind, then by value); anything
/// else is returned as it is.
fn in_key_order<'b, 'v>(range: CowVal<'b, 'v>) -> CowVal<'b, 'v> {
    let Some(map) = range.downcast_ref::<CelMap>() else {
        return range;
    };
    let mut keys: Vec<_> = map.keys().collect();
    keys.sort_unstable();
    let keys: Vec<Box<dyn Val + 'v>> =
        keys.into_iter().map(|k| k.inner().clone_as_boxed()).collect();
    CowVal::owned(CelList::from(keys))
}

/// Wraps every comprehension range of `expr` in the guard; `next_id` gives fresh node ids.
pub(crate) fn instrument(expr: &mut IdedExpr, next_id: &mut u64) {
    if let Expr::Comprehension(c) = &mut expr.expr {
        let weight = (ast::node_count(&c.loop_cond) + ast::node_count(&c.loop_step)) as i64;
        let range = std::mem::take(&mut c.iter_range);
        *next_id += 2;
        c.iter_range = IdedExpr {
            id: *next_id - 1,
            expr: Expr::Call(CallExpr {
                func_name: GUARD.to_string(),
                target: None,
                args: vec![
                    range,
                    IdedExpr {
                        id: *next_id,
                        expr: Expr::Literal(LiteralValue::Int(CelInt::from(weight))),
                    },
                ],
            }),
        };
    }
    for child in children_mut(expr) {
        instrument(child, next_id);
    }
}

/// The direct sub-expressions of `expr`, mutable.
pub(crate) fn children_mut(expr: &mut IdedExpr) -> Vec<&mut IdedExpr> {
    use cel::common::ast::EntryExpr;
    match &mut expr.expr {
        Expr::Call(call) => {
            call.target.as_deref_mut().into_iter().chain(call.args.iter_mut()).collect()
        }
        Expr::Comprehension(c) => vec![
            &mut c.iter_range,
            &mut c.accu_init,
            &mut c.loop_cond,
            &mut c.loop_step,
            &mut c.result,
        ],
        Expr::List(list) => list.elements.iter_mut().collect(),
        Expr::Map(MapExpr { entries }) | Expr::Struct(StructExpr { entries, .. }) => entries
            .iter_mut()
            .flat_map(|e| match &mut e.expr {
                EntryExpr::MapEntry(m) => vec![&mut m.key, &mut m.value],
                EntryExpr::StructField(f) => vec![&mut f.value],
            })
            .collect(),
        Expr::Select(select) => vec![&mut *select.operand],
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => Vec::new(),
    }
}
