#![doc = include_str!("../README.md")]

mod config;
pub mod event;
mod failure;
mod function;
pub mod properties;
pub mod provider;
pub mod reason;
mod respond;

pub use config::Config;
pub use event::{CfnRequest, CfnResponse, RequestType, Status};
pub use failure::{Failure, Undelivered};
pub use function::Function;
pub use provider::{AGENT_TYPE, TOOL_TYPE};
