#![doc = include_str!("../README.md")]

pub mod admit;
mod decide;
mod decision;
pub mod enforce;
mod error;
mod grant;
mod record;
mod stage;

pub use admit::Known;
pub use decide::{Budget, CallRequest, Counting, counts_calls, decide, decide_access};
pub use decision::{AuthorizeTrace, CallDecision};
pub use enforce::{
    AUDIENCE_ENV, Clock, DEFAULT_MAX_STALENESS, ISSUER_ENV, JWKS_ENV, JWKS_URL_ENV, Loaded,
    MAX_STALENESS_ENV, Point, Refusal, Refused, RuleSource, Session, StoreSource, SystemClock,
    key_source, max_staleness,
};
pub use error::DecideError;
pub use grant::{
    AgentGrant, Fetched, Grant, MAX_RELEASES, agent_grant, fetch_definitions, grant_of,
    live_releases,
};
pub use record::Stamp;
pub use registry_core::resolve::{ToolAccess, ToolRules, tool_access};
pub use stage::{Reason, Stage};
