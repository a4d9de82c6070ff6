//! The guard's configuration, from the function's environment.

use std::time::Duration;

use std::sync::Arc;

use registry_config::{ConfigError, Vars, names};
use registry_policy::{DEFAULT_MAX_STALENESS, JWKS_URL_ENV, key_source, max_staleness};
use registry_token::KeySource;

/// The registry tool id whose call rules guard this function (e.g. `convert_units@1.0.0`).
pub const TOOL_ID_ENV: &str = names::TOOL_ID;
/// The registry's DynamoDB table.
pub const TABLE_ENV: &str = names::TABLE;
/// A DynamoDB-API endpoint URL instead of AWS's (local servers in tests), as the
/// registry's own functions read it.
pub const ENDPOINT_ENV: &str = names::DYNAMODB_ENDPOINT_URL;
/// `off` turns the guard off (local runs and tests of the handler); anything else, or
/// unset, keeps it on.
pub const SWITCH_ENV: &str = names::GUARD;

/// What the guard needs besides its rule source.
#[derive(Debug, Clone)]
pub struct GuardConfig {
    /// The tool whose call rules apply.
    pub tool_id: String,
    /// The registry's public keys, issuer and audience that verify principal tokens.
    pub keys: Arc<KeySource>,
    /// The oldest rules may be when the source cannot be read; they are re-read once
    /// half as old.
    pub max_staleness: Duration,
}

impl GuardConfig {
    /// A configuration with the default staleness bound.
    pub fn new(tool_id: impl Into<String>, keys: KeySource) -> Self {
        Self { tool_id: tool_id.into(), keys: Arc::new(keys), max_staleness: DEFAULT_MAX_STALENESS }
    }

    /// This configuration with another staleness bound.
    #[must_use]
    pub fn with_max_staleness(mut self, max_staleness: Duration) -> Self {
        self.max_staleness = max_staleness;
        self
    }

    /// Reads [`TOOL_ID_ENV`], the registry's keys and the staleness bound
    /// (`registry_policy::key_source`, `registry_policy::max_staleness`) through `var` (`std::env::var` in a
    /// Lambda); `Err` names every problem.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let mut vars = Vars::new(var);
        let tool_id =
            vars.required(TOOL_ID_ENV, "the registry tool whose rules guard this function");
        let keys = key_source(&mut vars);
        let max_staleness = max_staleness(&mut vars);
        vars.finish()?;
        let keys = keys.ok_or_else(|| {
            ConfigError::missing(
                JWKS_URL_ENV,
                "the registry's JWKS URL (or a JWKS document in REGISTRY_JWKS)",
            )
        })?;
        Ok(Self { tool_id, keys: Arc::new(keys), max_staleness })
    }
}

/// Whether [`SWITCH_ENV`] turns the guard off.
pub fn switched_off(var: impl Fn(&str) -> Option<String>) -> bool {
    var(SWITCH_ENV).is_some_and(|v| v.trim().eq_ignore_ascii_case("off"))
}
