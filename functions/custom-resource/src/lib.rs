//! The CloudFormation custom resource of the registry: `Custom::AgentRegistryTool` and
//! `Custom::AgentRegistryAgent` register, update and delete tools and agents with the
//! stack (see `README.md`).
//!
//! [`Function::invoke`] handles one event and always answers the `ResponseURL`;
//! [`provider`] is what each request type does; [`properties`] turns the resource
//! properties into a definition.

pub mod event;
mod function;
pub mod properties;
pub mod provider;
pub mod reason;
mod respond;

pub use event::{CfnRequest, CfnResponse, RequestType, Status};
pub use function::Function;
pub use provider::{AGENT_TYPE, TOOL_TYPE};
