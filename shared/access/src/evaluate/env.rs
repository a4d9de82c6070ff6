//! The one CEL environment shared by compilation and evaluation: the standard
//! library plus the budget guard and the charged twins of growing and scanning
//! operations (`charged.rs`).

use crate::evaluate::budget;
use crate::evaluate::charged;
use cel::Env;
use cel::common::types::{DYN_TYPE, INT_TYPE};
use std::sync::{Arc, LazyLock};

/// A charged twin (see `charged.rs`).
type Charged = for<'b, 'v> fn(
    Vec<cel::common::value::CowVal<'b, 'v>>,
) -> Result<cel::common::value::CowVal<'b, 'v>, cel::ExecutionError>;

static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| {
    let mut env = Env::stdlib();
    // Cannot fail on a fresh stdlib (the name is unique); if it ever did, every
    // comprehension would fail at run time, which is fail-closed.
    let _ = env.add_overload(budget::GUARD, "cost_guard", vec![DYN_TYPE, INT_TYPE], budget::guard);
    let twins: [(&str, &str, usize, Charged, Charged); 5] = [
        (charged::CONTAINS, "charged_contains", 2, charged::contains, charged::contains_m),
        (
            charged::STARTS_WITH,
            "charged_starts_with",
            2,
            charged::starts_with,
            charged::starts_with_m,
        ),
        (charged::ENDS_WITH, "charged_ends_with", 2, charged::ends_with, charged::ends_with_m),
        (charged::SIZE, "charged_size", 1, charged::size, charged::size_m),
        (charged::MATCHES, "charged_matches", 2, charged::matches, charged::matches_m),
    ];
    let dyns = |n: usize| (0..n).map(|_| DYN_TYPE).collect::<Vec<_>>();
    let _ = env.add_overload(charged::ADD, "charged_add", dyns(2), charged::add);
    for (name, id, arity, twin, member) in twins {
        let _ = env.add_overload(name, id, dyns(arity), twin);
        let member_name = format!("{name}{}", charged::MEMBER);
        let _ = env.add_overload(&member_name, &format!("{id}_member"), dyns(arity), member);
    }
    Arc::new(env)
});

/// The shared environment.
pub(crate) fn env() -> &'static Arc<Env> {
    &ENV
}
