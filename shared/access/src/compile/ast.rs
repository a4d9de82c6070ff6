//! Small helpers over the `cel` AST: children of a node and where a node was written.

use cel::common::ast::{EntryExpr, Expr, IdedExpr, SourceInfo};

/// The direct sub-expressions of `expr`, in source order.
pub(crate) fn children(expr: &IdedExpr) -> Vec<&IdedExpr> {
    match &expr.expr {
        Expr::Call(call) => call.target.as_deref().into_iter().chain(&call.args).collect(),
        Expr::Comprehension(c) => {
            vec![&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result]
        }
        Expr::List(list) => list.elements.iter().collect(),
        Expr::Map(map) => map.entries.iter().flat_map(|e| entry(&e.expr)).collect(),
        Expr::Struct(s) => s.entries.iter().flat_map(|e| entry(&e.expr)).collect(),
        Expr::Select(select) => vec![&select.operand],
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => Vec::new(),
    }
}

fn entry(e: &EntryExpr) -> Vec<&IdedExpr> {
    match e {
        EntryExpr::MapEntry(m) => vec![&m.key, &m.value],
        EntryExpr::StructField(f) => vec![&f.value],
    }
}

/// Number of nodes in the tree rooted at `expr`.
pub(crate) fn node_count(expr: &IdedExpr) -> usize {
    1 + children(expr).into_iter().map(node_count).sum::<usize>()
}

/// Byte offset where node `id` starts in the source, when known.
///
/// The parser records offsets in characters; they are turned into bytes here.
pub(crate) fn offset(info: &SourceInfo, id: u64) -> Option<usize> {
    let (start, _) = info.offset_for(id)?;
    let start = usize::try_from(start).ok()?;
    Some(info.source.char_indices().nth(start).map_or(info.source.len(), |(b, _)| b))
}
