#![doc = include_str!("../README.md")]

mod claims;
mod config;
mod gateway;
mod name;
mod principal;
mod verdict;

pub use claims::{ClaimsMapping, MappingError};
pub use config::{AGENT_ENV, CLAIMS_ENV, GatewayConfig};
pub use gateway::{Call, Gateway, Listed};
pub use name::{AGENTCORE_SEPARATOR, TARGET_TAG, split_target};
pub use principal::Caller;
pub use registry_access::{DecisionPoint, DecisionRecord};
pub use registry_policy::{Clock, RuleSource, StoreSource};
pub use verdict::{Denial, DenialKind, Verdict};
