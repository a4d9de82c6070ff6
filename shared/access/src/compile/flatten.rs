//! Turns field paths on declared variables (`user.userType`, `customData.a.b`) into
//! single identifiers (`"user.userType"`) that the prepared context resolves
//! directly: the `cel` interpreter otherwise allocates and walks scopes, types and
//! containers for every qualified name, which dominates the cost of simple rules.

use crate::compile::declared::VARIABLES;
use cel::common::ast::{EntryExpr, Expr, IdedExpr};

/// Flattens every select chain rooted at a declared, unshadowed variable.
pub(crate) fn flatten(expr: &mut IdedExpr) {
    let mut scope = Vec::new();
    walk(expr, &mut scope);
}

/// `a.b.c` as `["a", "b", "c"]` when `expr` is a plain select chain on an identifier.
fn segments(expr: &Expr) -> Option<Vec<&str>> {
    match expr {
        Expr::Ident(name) => Some(vec![name.as_str()]),
        Expr::Select(s) if !s.test => {
            let mut out = segments(&s.operand.expr)?;
            out.push(s.field.as_str());
            Some(out)
        }
        _ => None,
    }
}

fn walk(expr: &mut IdedExpr, scope: &mut Vec<String>) {
    if let Expr::Select(s) = &expr.expr
        && !s.test
    {
        let path = segments(&expr.expr).filter(|segs| {
            let root = segs[0];
            !scope.iter().any(|s| s == root) && VARIABLES.iter().any(|v| v.name == root)
        });
        if let Some(path) = path {
            expr.expr = Expr::Ident(path.join("."));
            return;
        }
    }
    match &mut expr.expr {
        Expr::Comprehension(c) => {
            walk(&mut c.iter_range, scope);
            walk(&mut c.accu_init, scope);
            let depth = scope.len();
            scope.push(c.iter_var.clone());
            if let Some(v) = &c.iter_var2 {
                scope.push(v.clone());
            }
            scope.push(c.accu_var.clone());
            walk(&mut c.loop_cond, scope);
            walk(&mut c.loop_step, scope);
            walk(&mut c.result, scope);
            scope.truncate(depth);
        }
        Expr::Call(call) => {
            if let Some(t) = call.target.as_deref_mut() {
                walk(t, scope);
            }
            for a in &mut call.args {
                walk(a, scope);
            }
        }
        Expr::List(list) => {
            for e in &mut list.elements {
                walk(e, scope);
            }
        }
        Expr::Map(map) => {
            for e in &mut map.entries {
                if let EntryExpr::MapEntry(m) = &mut e.expr {
                    walk(&mut m.key, scope);
                    walk(&mut m.value, scope);
                }
            }
        }
        Expr::Select(s) => walk(&mut s.operand, scope),
        Expr::Struct(_) | Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}
