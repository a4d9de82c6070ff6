//! The one CEL environment shared by compilation and evaluation: the standard
//! library plus the budget guard.

use crate::budget;
use cel::Env;
use cel::common::types::{DYN_TYPE, INT_TYPE};
use std::sync::{Arc, LazyLock};

static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| {
    let mut env = Env::stdlib();
    // Cannot fail on a fresh stdlib (the name is unique); if it ever did, every
    // comprehension would fail at run time, which is fail-closed.
    let _ = env.add_overload(budget::GUARD, "cost_guard", vec![DYN_TYPE, INT_TYPE], budget::guard);
    Arc::new(env)
});

/// The shared environment.
pub(crate) fn env() -> &'static Arc<Env> {
    &ENV
}
