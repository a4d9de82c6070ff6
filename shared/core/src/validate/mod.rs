//! Validation of definitions on every write path; every violation is collected.

mod agent;
mod tool;

pub use agent::agent;
pub use tool::tool;
