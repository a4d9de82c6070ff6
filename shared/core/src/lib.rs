#![doc = include_str!("../README.md")]

pub mod model;
mod release;
pub mod resolve;
pub mod rollout;
mod rule_ids;
mod secret;
pub mod session;
pub mod strict_json;
pub mod validate;
mod version_cache;
mod violation;

pub use model::*;
pub use registry_access::{
    AccessRule, Decision, Effect, ReasonCode, RequestContext, RuleMode, SessionView,
};
pub use registry_types::pointer;
pub use registry_types::{Confirmation, FunctionDefinition, ParameterDefinition, TypeDefinition};
pub use release::{
    Release, ReleaseChoice, SkipReason, ToolRef, ToolRefError, choose_release, release_order,
};
pub use rule_ids::assign_rule_ids;
pub use secret::Secret;
pub use version_cache::VersionCache;
pub use violation::{Violation, Violations};
