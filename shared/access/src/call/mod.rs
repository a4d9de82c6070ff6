//! Call rules (SPEC section 16): the `call` variable, typed by the tool's schema.

pub(crate) mod check;
pub(crate) mod prepared;
pub(crate) mod schema;
