//! Lowering a compiled condition (the `cel` AST after `budget` and `flatten`) into the
//! fast-path [`Node`] tree, when every node is inside the subset:
//!
//! - literals other than bytes, and list literals of those (built once, here);
//!   flattened context paths (`user.userType`, `customData.a.b`, `request.toolId`) and
//!   the variables `user`, `customData`, `account` (not a bare `request`, which the
//!   resolver builds on demand); comprehension variables, and field selections on them;
//! - `==`, `!=`, `<`, `<=`, `>`, `>=`, `!`, `&&`, `||`, `? :`, `[ ]`, `+` (on ints;
//!   other operand types are handed to the interpreter at run time);
//! - `in` on a list literal (a sorted set when every element is a string literal) or
//!   on any other expression;
//! - `size(x)` and `x.size()`, `startsWith`, `endsWith`, `contains`;
//! - `has(x.f)`;
//! - the `exists` and `all` macros, exactly as the parser expands them, with the
//!   range wrapped in the budget guard.
//!
//! Anything else (`-`, `*`, `/`, `%`, `map`, `filter`, `exists_one`, map literals,
//! list literals with computed elements outside `in`, `matches`, `timestamp()`, ...)
//! returns `None` and the whole condition stays on the `cel` interpreter.

use crate::budget;
use crate::node::{CmpOp, Const, Loop, Node, Path, RequestField, Root, StrFn};
use crate::prepared::SLOTS;
use cel::common::ast::operators;
use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelList, CelMapKey, CelString};

/// Most comprehension variables in scope at once (bounded far lower by
/// `MAX_COMPREHENSION_NESTING`).
pub(crate) const MAX_VARS: usize = 4;

/// The name of the accumulator the `exists` / `all` macros bind.
const ACCU: &str = "@result";

/// The fast-path tree of `expr`, or `None` when any part is outside the subset.
pub(crate) fn lower(expr: &IdedExpr) -> Option<Node> {
    let mut scope = Vec::new();
    node(expr, &mut scope)
}

type Scope<'e> = Vec<&'e str>;

fn boxed<'e>(expr: &'e IdedExpr, scope: &mut Scope<'e>) -> Option<Box<Node>> {
    node(expr, scope).map(Box::new)
}

fn node<'e>(expr: &'e IdedExpr, scope: &mut Scope<'e>) -> Option<Node> {
    match &expr.expr {
        // strings and ints are kept as text and number: no `cel` value to look into
        Expr::Literal(LiteralValue::String(s)) => Some(Node::Str(s.inner().to_string())),
        Expr::Literal(LiteralValue::Int(i)) => Some(Node::Int(*i.inner())),
        Expr::Literal(_) => constant(expr).map(Node::Const),
        Expr::Ident(name) => match scope.iter().rposition(|s| s == name) {
            Some(at) => Some(Node::Var(at)),
            None => path(name).map(Node::Ctx),
        },
        Expr::Select(select) => {
            let field = key(&select.field);
            let root = chain_root(&select.operand.expr);
            let scoped = root.is_some_and(|r| scope.contains(&r));
            if !select.test {
                // a name chain not rooted at a comprehension variable was flattened;
                // anything else would be resolved as a qualified name: not lowered
                if root.is_some() && !scoped {
                    return None;
                }
                return Some(Node::Select(boxed(&select.operand, scope)?, field));
            }
            match &select.operand.expr {
                Expr::Ident(name) if !scoped && name == "request" => {
                    Some(Node::HasRequest(match select.field.as_str() {
                        "toolId" => RequestField::ToolId,
                        "agentId" => RequestField::AgentId,
                        _ => RequestField::Other(field),
                    }))
                }
                // a single identifier (a flattened path) or a chain on a comprehension variable
                Expr::Ident(_) => Some(Node::Has(boxed(&select.operand, scope)?, field)),
                _ if root.is_some() && !scoped => None,
                _ => Some(Node::Has(boxed(&select.operand, scope)?, field)),
            }
        }
        Expr::Call(call) => self::call(call, scope),
        Expr::Comprehension(c) => comprehension(c, scope),
        Expr::List(_) => constant(expr).map(Node::Const),
        Expr::Map(_) | Expr::Struct(_) | Expr::Unspecified => None,
    }
}

/// A literal, or a list literal of constants, as the value the interpreter builds for
/// it on every evaluation.
fn constant(expr: &IdedExpr) -> Option<Const> {
    match &expr.expr {
        Expr::Literal(LiteralValue::Bytes(_)) => None,
        Expr::Literal(literal) => Some(literal.to_val().into_owned()),
        Expr::List(list) if list.optional_indices.is_empty() => {
            let elements = list.elements.iter().map(constant).collect::<Option<Vec<_>>>()?;
            Some(Box::new(CelList::from(elements)))
        }
        _ => None,
    }
}

/// A field name as a map key.
fn key(field: &str) -> CelMapKey<'static> {
    CelMapKey::String(CelString::from(field.to_string()))
}

/// The root identifier of a plain select chain (`a.b.c` -> `a`), or of an identifier.
fn chain_root(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Ident(name) => Some(name),
        Expr::Select(s) if !s.test => chain_root(&s.operand.expr),
        _ => None,
    }
}

/// Where the prepared context's resolver finds the flattened identifier `name`.
fn path(name: &str) -> Option<Path> {
    if let Some(at) = SLOTS.iter().position(|s| *s == name) {
        return Some(Path::Slot(at));
    }
    let (root, rest) = match name.split_once('.') {
        Some((root, rest)) => (root, Some(rest)),
        None => (name, None),
    };
    let root = match (root, rest) {
        ("user", _) => Root::User,
        ("customData", _) => Root::CustomData,
        ("account", _) => Root::Account,
        ("request", Some("toolId")) => return Some(Path::ToolId),
        ("request", Some("agentId")) => return Some(Path::AgentId),
        ("request", Some(_)) => Root::Request,
        _ => return None,
    };
    Some(match rest {
        None => Path::Root(root),
        Some(fields) => Path::Walk(root, fields.split('.').map(key).collect()),
    })
}

/// Whether a member call on `target` is a method call for `cel` too: a target
/// spelling a name in a function namespace (`optional.of`) calls that function.
fn plain_target(target: &IdedExpr) -> bool {
    chain_root(&target.expr).is_none_or(|root| root.split('.').next() != Some("optional"))
}

fn call<'e>(call: &'e CallExpr, scope: &mut Scope<'e>) -> Option<Node> {
    let args = &call.args;
    let name = call.func_name.as_str();
    let Some(target) = &call.target else {
        if let (Some(op), [left, right]) = (comparison(name), args.as_slice()) {
            return Some(comparison_node(op, node(left, scope)?, node(right, scope)?));
        }
        return match (name, args.len()) {
            (operators::LOGICAL_AND, 2) => {
                Some(Node::And(boxed(&args[0], scope)?, boxed(&args[1], scope)?))
            }
            (operators::LOGICAL_OR, 2) => {
                Some(Node::Or(boxed(&args[0], scope)?, boxed(&args[1], scope)?))
            }
            (operators::LOGICAL_NOT, 1) => Some(Node::Not(boxed(&args[0], scope)?)),
            (operators::CONDITIONAL, 3) => Some(Node::Cond(
                boxed(&args[0], scope)?,
                boxed(&args[1], scope)?,
                boxed(&args[2], scope)?,
            )),
            (operators::ADD, 2) => {
                Some(Node::Add(boxed(&args[0], scope)?, boxed(&args[1], scope)?))
            }
            (operators::INDEX, 2) => {
                Some(Node::Index(boxed(&args[0], scope)?, boxed(&args[1], scope)?))
            }
            (operators::IN, 2) => membership(&args[0], &args[1], scope),
            ("size", 1) => Some(Node::Size(boxed(&args[0], scope)?)),
            _ => None,
        };
    };
    if !plain_target(target) {
        return None;
    }
    let string_fn = match name {
        "size" if args.is_empty() => return Some(Node::Size(boxed(target, scope)?)),
        "startsWith" => StrFn::StartsWith,
        "endsWith" => StrFn::EndsWith,
        "contains" => StrFn::Contains,
        _ => return None,
    };
    match args.as_slice() {
        [arg] => Some(match (node(target, scope)?, node(arg, scope)?) {
            (Node::Ctx(path), Node::Str(s)) => Node::StrFnCtx(string_fn, path, s),
            (target, arg) => Node::StrFn(string_fn, Box::new(target), Box::new(arg)),
        }),
        _ => None,
    }
}

/// `left op right`, in one node for the shapes most conditions have (a context value or
/// a comprehension variable against a string literal, a size against an int literal).
fn comparison_node(op: CmpOp, left: Node, right: Node) -> Node {
    match (left, right) {
        (Node::Ctx(path), Node::Str(s)) => Node::CmpCtxStr(op, path, s),
        (Node::Var(at), Node::Str(s)) => Node::CmpVarStr(op, at, s),
        (Node::Size(operand), Node::Int(n)) => match *operand {
            Node::Ctx(path) => Node::CmpCtxSize(op, path, n),
            operand => {
                Node::Cmp(op, Box::new(Node::Size(Box::new(operand))), Box::new(Node::Int(n)))
            }
        },
        (left, right) => Node::Cmp(op, Box::new(left), Box::new(right)),
    }
}

/// The comparison operator named `name`.
fn comparison(name: &str) -> Option<CmpOp> {
    Some(match name {
        operators::EQUALS => CmpOp::Eq,
        operators::NOT_EQUALS => CmpOp::Ne,
        operators::LESS => CmpOp::Lt,
        operators::LESS_EQUALS => CmpOp::Le,
        operators::GREATER => CmpOp::Gt,
        operators::GREATER_EQUALS => CmpOp::Ge,
        _ => return None,
    })
}

/// `lhs in rhs`.
fn membership<'e>(lhs: &'e IdedExpr, rhs: &'e IdedExpr, scope: &mut Scope<'e>) -> Option<Node> {
    let needle = boxed(lhs, scope)?;
    let Expr::List(list) = &rhs.expr else {
        return Some(Node::In(needle, boxed(rhs, scope)?));
    };
    if !list.optional_indices.is_empty() {
        return None;
    }
    let strings: Option<Vec<String>> = list
        .elements
        .iter()
        .map(|e| match &e.expr {
            Expr::Literal(LiteralValue::String(s)) => Some(s.inner().to_string()),
            _ => None,
        })
        .collect();
    if let Some(mut strings) = strings {
        strings.sort_unstable();
        strings.dedup();
        return Some(Node::InStrings(needle, strings.into_boxed_slice()));
    }
    if let Some(list) = constant(rhs) {
        return Some(Node::In(needle, Box::new(Node::Const(list))));
    }
    let elements = list.elements.iter().map(|e| node(e, scope)).collect::<Option<Vec<_>>>()?;
    Some(Node::InList(needle, elements.into_boxed_slice()))
}

fn is_accu(expr: &IdedExpr) -> bool {
    matches!(&expr.expr, Expr::Ident(name) if name == ACCU)
}

/// The single argument of a target-less call to `function`.
fn unary<'e>(expr: &'e IdedExpr, function: &str) -> Option<&'e IdedExpr> {
    match &expr.expr {
        Expr::Call(c) if c.target.is_none() && c.func_name == function && c.args.len() == 1 => {
            c.args.first()
        }
        _ => None,
    }
}

/// An `exists` / `all` comprehension exactly as the macros expand it, its range
/// wrapped in the budget guard: `@cost(range, weight)`.
fn comprehension<'e>(c: &'e ComprehensionExpr, scope: &mut Scope<'e>) -> Option<Node> {
    if c.iter_var2.is_some() || c.accu_var != ACCU || !is_accu(&c.result) {
        return None;
    }
    let all = match &c.accu_init.expr {
        Expr::Literal(LiteralValue::Boolean(b)) => *b.inner(),
        _ => return None,
    };
    // all: @not_strictly_false(@result); exists: @not_strictly_false(!@result)
    let cond = unary(&c.loop_cond, operators::NOT_STRICTLY_FALSE)?;
    let cond_ok =
        if all { is_accu(cond) } else { unary(cond, operators::LOGICAL_NOT).is_some_and(is_accu) };
    // all: @result && body; exists: @result || body
    let fold = if all { operators::LOGICAL_AND } else { operators::LOGICAL_OR };
    let body = match &c.loop_step.expr {
        Expr::Call(step)
            if step.target.is_none() && step.func_name == fold && step.args.len() == 2 =>
        {
            match step.args.as_slice() {
                [accu, body] if is_accu(accu) => body,
                _ => return None,
            }
        }
        _ => return None,
    };
    let (range, weight) = match &c.iter_range.expr {
        Expr::Call(guard) if guard.target.is_none() && guard.func_name == budget::GUARD => {
            match guard.args.as_slice() {
                [range, IdedExpr { expr: Expr::Literal(LiteralValue::Int(w)), .. }] => {
                    (range, u64::try_from(*w.inner()).unwrap_or(1))
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    if !cond_ok || scope.len() >= MAX_VARS {
        return None;
    }
    let range = node(range, scope)?;
    let var = scope.len();
    scope.push(&c.iter_var);
    let body = node(body, scope);
    scope.pop();
    Some(Node::Loop(Box::new(Loop { all, range, weight, var, body: body? })))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use crate::compile::conditions;
    use crate::node::Node;

    fn lowered(source: &str) -> Node {
        let compiled = conditions(vec![Some(source.to_owned())]).pop().flatten();
        match compiled {
            Some(Ok(condition)) => condition.fast.unwrap(),
            _ => panic!("`{source}` does not compile"),
        }
    }

    /// The common shapes are one node each (decision 47); others keep the general nodes.
    #[test]
    fn common_comparisons_are_fused() {
        assert!(matches!(lowered("user.userType == 'x'"), Node::CmpCtxStr(..)));
        assert!(matches!(lowered("size(user.roles) > 1"), Node::CmpCtxSize(..)));
        assert!(matches!(lowered("user.email.startsWith('a')"), Node::StrFnCtx(..)));
        let Node::Loop(l) = lowered("user.roles.exists(r, r == 'a')") else { panic!("loop") };
        assert!(matches!(l.body, Node::CmpVarStr(..)));
        assert!(matches!(lowered("'x' == user.userType"), Node::Cmp(..)));
        assert!(matches!(lowered("size(user.roles) > size(user.email)"), Node::Cmp(..)));
        assert!(matches!(lowered("user.email.startsWith(user.userType)"), Node::StrFn(..)));
    }
}
