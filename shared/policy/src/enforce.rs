//! The enforcement point every transport wraps (the action-group guard of a tool
//! Lambda, the MCP gateways' point): a principal token verified with the keys it is
//! given, the tool's rules and the agent's definitions read from a [`RuleSource`] and
//! cached on one staleness timer, the call counted through the `Store` trait, and
//! [`decide`](crate::decide) deciding it. No transport of its own: the store and the
//! key source are handed to it (decision 105).

mod budgets;
mod clock;
mod fresh;
mod keys;
mod loaded;
mod point;
mod principals;
mod refusal;
mod rules;
mod source;

pub use clock::{Clock, SystemClock};
pub use fresh::READ_TIMEOUT;
pub use keys::{
    AUDIENCE_ENV, DEFAULT_MAX_STALENESS, ISSUER_ENV, JWKS_ENV, JWKS_URL_ENV, MAX_STALENESS_ENV,
    key_source, max_staleness,
};
pub use loaded::Loaded;
pub use point::{Point, Refused, Session};
pub use refusal::Refusal;
pub use source::{RuleSource, StoreSource};
