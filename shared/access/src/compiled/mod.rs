//! The compiled form of a condition: an optimization of the interpreter, never a second
//! meaning (decision 95). When a rule is compiled, the part of CEL it is written in is
//! lowered from the interpreter's own AST (instrumented and flattened: `compile`) into
//! a small tree ([`lower`]) that reads the prepared context's values in place
//! ([`source`]) instead of building `cel` values, and runs with the interpreter's
//! semantics ([`run`], [`ops`]): CEL's error-absorbing `&&`, `||` and `exists`/`all`,
//! `==` and ordering of same-typed scalars, `in` a list, `has()`, `size`, the string
//! scans, each charged as its charged twin charges (docs/limits.md).
//!
//! It answers only `true` or `false`, and only where it is certain: a condition it
//! cannot lower keeps the interpreter alone; a value it cannot judge at run time (mixed
//! numeric types, timestamps, lists compared whole, a map iterated, a budget run out)
//! and any error hand the whole condition to the interpreter, which starts again on
//! the same budget, so that errors, their messages and budget errors are the
//! interpreter's. `tests/differential.rs` holds it to the interpreter and to the
//! unmodified `cel` crate (docs/rules.md).

mod lower;
mod ops;
mod run;
pub(crate) mod source;

use cel::common::ast::IdedExpr;
use run::Node;
use source::Source;

/// A condition's compiled form.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    root: Node,
}

impl Program {
    /// The compiled form of `expr` (a compiled condition's AST), when all of it is in
    /// the subset.
    pub(crate) fn of(expr: &IdedExpr) -> Option<Program> {
        lower::lower(expr).map(|root| Program { root })
    }

    /// Whether the condition holds on `source`, when the compiled form is certain of
    /// what the interpreter gives; steps are taken from `steps` only then. `None`: ask
    /// the interpreter (an error, or something the compiled form does not judge).
    pub(crate) fn run(&self, source: &dyn Source, steps: &mut u64) -> Option<bool> {
        run::run(&self.root, source, steps)
    }
}
