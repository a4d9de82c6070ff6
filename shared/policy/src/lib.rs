#![doc = include_str!("../README.md")]

mod decide;
mod decision;
mod error;
mod grant;
mod record;
mod stage;

pub use decide::{Budget, CallRequest, Counting, counts_calls, decide, decide_access};
pub use decision::{AuthorizeTrace, CallDecision};
pub use error::DecideError;
pub use grant::{
    AgentGrant, Fetched, Grant, MAX_RELEASES, agent_grant, fetch_definitions, grant_of,
    live_releases,
};
pub use record::Stamp;
pub use registry_core::resolve::{ToolAccess, ToolRules, tool_access};
pub use stage::{Reason, Stage};
