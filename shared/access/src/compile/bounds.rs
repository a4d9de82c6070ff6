//! Static bounds on a parsed condition: node count, depth and comprehension nesting.

use crate::compile::ast;
use crate::limits::{MAX_AST_DEPTH, MAX_AST_NODES, MAX_COMPREHENSION_NESTING};
use cel::common::ast::{Expr, IdedExpr};

/// Checks the size bounds of `root`; returns one message per bound exceeded.
pub(crate) fn check(root: &IdedExpr) -> Vec<String> {
    let mut out = Vec::new();
    let nodes = ast::node_count(root);
    if nodes > MAX_AST_NODES {
        out.push(format!(
            "condition too complex: {nodes} expression nodes, at most {MAX_AST_NODES}; split it into several rules"
        ));
    }
    let depth = depth(root);
    if depth > MAX_AST_DEPTH {
        out.push(format!(
            "condition nested {depth} levels deep, at most {MAX_AST_DEPTH}; split long chains (a + b + c + ...) or use lists and `in`"
        ));
    }
    let nesting = nesting(root);
    if nesting > MAX_COMPREHENSION_NESTING {
        out.push(format!(
            "comprehensions (all/exists/exists_one/map/filter) nested {nesting} deep, at most {MAX_COMPREHENSION_NESTING}; flatten the condition"
        ));
    }
    out
}

/// Levels of the tree rooted at `expr`.
fn depth(expr: &IdedExpr) -> usize {
    1 + ast::children(expr).into_iter().map(depth).max().unwrap_or(0)
}

/// Deepest nesting of comprehensions evaluated once per iteration of another.
pub(crate) fn nesting(expr: &IdedExpr) -> usize {
    match &expr.expr {
        Expr::Comprehension(c) => {
            let once = nesting(&c.iter_range).max(nesting(&c.accu_init)).max(nesting(&c.result));
            let per_iteration = nesting(&c.loop_cond).max(nesting(&c.loop_step));
            once.max(1 + per_iteration)
        }
        _ => ast::children(expr).into_iter().map(nesting).max().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nest(src: &str) -> usize {
        nesting(&cel::Env::stdlib().parser().parse(src).unwrap())
    }

    #[test]
    fn counts_nesting_per_iteration_only() {
        assert_eq!(nest("1 == 1"), 0);
        assert_eq!(nest("[1].exists(x, x == 1)"), 1);
        assert_eq!(nest("[1].exists(x, [2].all(y, y > x))"), 2);
        assert_eq!(nest("[1].map(x, x).exists(y, y == 1)"), 1);
        assert_eq!(nest("[1].all(a, [1].all(b, [1].all(c, a == c)))"), 3);
    }
}
