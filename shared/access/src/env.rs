//! The one CEL environment shared by compilation and evaluation: the standard
//! library plus the budget guard and the charged twins of growing and scanning
//! operations (`charged.rs`).

use crate::{budget, charged};
use cel::Env;
use cel::common::types::{DYN_TYPE, INT_TYPE};
use std::sync::{Arc, LazyLock};

static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| {
    let mut env = Env::stdlib();
    // Cannot fail on a fresh stdlib (the name is unique); if it ever did, every
    // comprehension would fail at run time, which is fail-closed.
    let _ = env.add_overload(budget::GUARD, "cost_guard", vec![DYN_TYPE, INT_TYPE], budget::guard);
    let _ = env.add_overload(charged::ADD, "charged_add", vec![DYN_TYPE, DYN_TYPE], charged::add);
    let _ = env.add_overload(
        charged::CONTAINS,
        "charged_contains",
        vec![DYN_TYPE, DYN_TYPE],
        charged::contains,
    );
    let _ = env.add_overload(
        charged::STARTS_WITH,
        "charged_starts_with",
        vec![DYN_TYPE, DYN_TYPE],
        charged::starts_with,
    );
    let _ = env.add_overload(
        charged::ENDS_WITH,
        "charged_ends_with",
        vec![DYN_TYPE, DYN_TYPE],
        charged::ends_with,
    );
    let _ = env.add_overload(charged::SIZE, "charged_size", vec![DYN_TYPE], charged::size);
    let _ = env.add_overload(
        charged::MATCHES,
        "charged_matches",
        vec![DYN_TYPE, DYN_TYPE],
        charged::matches,
    );
    Arc::new(env)
});

/// The shared environment.
pub(crate) fn env() -> &'static Arc<Env> {
    &ENV
}
