//! Lowering a compiled condition's AST (after `compile` instrumented and flattened it,
//! exactly what the interpreter runs) into [`Node`]s. Anything outside the subset
//! gives `None`, and the condition keeps the interpreter alone: arithmetic and `+`
//! (charged in bytes), conversions, `matches`, timestamps and durations, map literals
//! and lists of non-literals, `exists_one`, `map`, `filter`, comprehensions inside
//! comprehensions, member calls, `request` whole and the session's maps.

use crate::compiled::ops::{Order, Scan};
use crate::compiled::run::Node;
use crate::compiled::source::Path;
use crate::context::value::Value;
use crate::evaluate::budget;
use crate::evaluate::charged;
use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, IdedExpr, LiteralValue, operators};
use std::borrow::Cow;

/// `expr` lowered, when all of it is in the subset.
pub(crate) fn lower(expr: &IdedExpr) -> Option<Node> {
    node(expr, None)
}

/// `expr` lowered inside a comprehension whose variable is `local`.
fn node(expr: &IdedExpr, local: Option<&str>) -> Option<Node> {
    match &expr.expr {
        Expr::Literal(literal) => constant(literal).map(Node::Const),
        Expr::Ident(name) if Some(name.as_str()) == local => Some(Node::Local),
        Expr::Ident(name) => Path::of(name).map(Node::Path),
        Expr::List(list) if list.optional_indices.is_empty() => {
            let items = list.elements.iter().map(|e| match &e.expr {
                Expr::Literal(literal) => constant(literal),
                _ => None,
            });
            Some(Node::Const(Value::List(items.collect::<Option<_>>()?)))
        }
        Expr::Select(select) if select.test => {
            let operand = node(&select.operand, local)?;
            // the interpreter resolves a `has()` operand by name
            matches!(operand, Node::Path(_) | Node::Local)
                .then(|| Node::Has(Box::new(operand), select.field.as_str().into()))
        }
        Expr::Call(call) if call.target.is_none() => function(call, local),
        Expr::Comprehension(c) if local.is_none() => comprehension(c),
        _ => None,
    }
}

/// A literal's value (not bytes).
fn constant(literal: &LiteralValue) -> Option<Value<'static>> {
    Some(match literal {
        LiteralValue::Boolean(b) => Value::Bool(*b.inner()),
        LiteralValue::Int(i) => Value::Int(*i.inner()),
        LiteralValue::UInt(u) => Value::UInt(*u.inner()),
        LiteralValue::Double(d) => Value::Double(*d.inner()),
        LiteralValue::String(s) => Value::Str(Cow::Owned(s.inner().to_owned())),
        LiteralValue::Null => Value::Null,
        LiteralValue::Bytes(_) => return None,
    })
}

/// An operator or a charged twin.
fn function(call: &CallExpr, local: Option<&str>) -> Option<Node> {
    let args = call.args.iter().map(|a| node(a, local)).collect::<Option<Vec<_>>>()?;
    let name = call.func_name.as_str();
    let member = name.strip_suffix(charged::MEMBER);
    let scan = match member.unwrap_or(name) {
        charged::CONTAINS => Some(Scan::Contains),
        charged::STARTS_WITH => Some(Scan::StartsWith),
        charged::ENDS_WITH => Some(Scan::EndsWith),
        _ => None,
    };
    if let Some(scan) = scan {
        // the member form's arguments are `[needle, haystack]`
        let [a, b] = <[Node; 2]>::try_from(args).ok()?;
        return Some(match member {
            Some(_) => Node::Scan(Box::new([b, a]), scan, true),
            None => Node::Scan(Box::new([a, b]), scan, false),
        });
    }
    if member.unwrap_or(name) == charged::SIZE {
        let [x] = <[Node; 1]>::try_from(args).ok()?;
        return Some(Node::Size(Box::new(x)));
    }
    match args.len() {
        1 => {
            let [x] = <[Node; 1]>::try_from(args).ok()?;
            (name == operators::LOGICAL_NOT).then(|| Node::Not(Box::new(x)))
        }
        2 => {
            let pair = Box::new(<[Node; 2]>::try_from(args).ok()?);
            Some(match name {
                operators::LOGICAL_AND => Node::And(pair),
                operators::LOGICAL_OR => Node::Or(pair),
                operators::EQUALS => Node::Eq(pair, false),
                operators::NOT_EQUALS => Node::Eq(pair, true),
                operators::LESS => Node::Cmp(pair, Order::Less),
                operators::LESS_EQUALS => Node::Cmp(pair, Order::LessOrEqual),
                operators::GREATER => Node::Cmp(pair, Order::Greater),
                operators::GREATER_EQUALS => Node::Cmp(pair, Order::GreaterOrEqual),
                operators::IN => Node::In(pair),
                operators::INDEX => Node::Index(pair),
                _ => return None,
            })
        }
        3 if name == operators::CONDITIONAL => {
            Some(Node::Cond(Box::new(<[Node; 3]>::try_from(args).ok()?)))
        }
        _ => None,
    }
}

/// `exists` and `all` as the parser expands them, their range in the budget's guard:
/// `@cost(range, weight)`, accumulator `false` (`exists`: `@result || pred` while
/// `!@result`) or `true` (`all`: `@result && pred` while `@result`).
fn comprehension(c: &ComprehensionExpr) -> Option<Node> {
    let Expr::Call(guard) = &c.iter_range.expr else { return None };
    let [range, weight] = guard.args.as_slice() else { return None };
    let Expr::Literal(LiteralValue::Int(weight)) = &weight.expr else { return None };
    if guard.func_name != budget::GUARD || guard.target.is_some() || c.iter_var2.is_some() {
        return None;
    }
    let Expr::Literal(LiteralValue::Boolean(every)) = &c.accu_init.expr else { return None };
    let every = *every.inner();
    let accu = c.accu_var.as_str();
    let is_accu = |e: &IdedExpr| matches!(&e.expr, Expr::Ident(name) if name == accu);
    let [condition] = arguments(&c.loop_cond, operators::NOT_STRICTLY_FALSE)? else {
        return None;
    };
    let condition_holds = if every {
        is_accu(condition)
    } else {
        matches!(arguments(condition, operators::LOGICAL_NOT)?, [a] if is_accu(a))
    };
    let step = if every { operators::LOGICAL_AND } else { operators::LOGICAL_OR };
    let [folded, pred] = arguments(&c.loop_step, step)? else { return None };
    if !condition_holds || !is_accu(folded) || !is_accu(&c.result) {
        return None;
    }
    Some(Node::Loop {
        range: Box::new(node(range, None)?),
        weight: u64::try_from(*weight.inner()).unwrap_or(1),
        every,
        pred: Box::new(node(pred, Some(&c.iter_var))?),
    })
}

/// The arguments of `expr` when it calls the global function `name`.
fn arguments<'e>(expr: &'e IdedExpr, name: &str) -> Option<&'e [IdedExpr]> {
    match &expr.expr {
        Expr::Call(call) if call.func_name == name && call.target.is_none() => Some(&call.args),
        _ => None,
    }
}
