//! Access rules for agents and tools: CEL conditions, compiled on write, evaluated
//! first-match and fail-closed (SPEC section 4).

mod rule;

pub use rule::{AccessRule, Effect};
