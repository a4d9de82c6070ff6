//! Call rules (SPEC sections 16 and 19): the `call` variable, typed by the tool's
//! schema, and the `session` variable.

pub(crate) mod check;
pub(crate) mod prepared;
pub(crate) mod schema;
pub(crate) mod session;
