#![doc = include_str!("../README.md")]

pub mod names;
mod table;
mod vars;

pub use table::{DEFAULT_SECRETS_PREFIX, Secrets, Table};
pub use vars::{ConfigError, NotBoolean, Problem, Vars, boolean};
