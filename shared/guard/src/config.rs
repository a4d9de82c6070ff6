//! The guard's configuration, from the function's environment.

use std::time::Duration;

use registry_access::signed::KeyRing;
use registry_config::{ConfigError, Vars, names};

/// The registry tool id whose call rules guard this function (e.g. `convert_units@1.0.0`).
pub const TOOL_ID_ENV: &str = names::TOOL_ID;
/// The registry's DynamoDB table.
pub const TABLE_ENV: &str = names::TABLE;
/// A DynamoDB-API endpoint URL instead of AWS's (local servers in tests), as the
/// registry's own functions read it.
pub const ENDPOINT_ENV: &str = names::DYNAMODB_ENDPOINT_URL;
/// The keys that verify signed principal contexts, in `KeyRing` text form
/// (`keyId:base64secret`, comma or newline separated).
pub const KEYS_ENV: &str = names::CONTEXT_KEYS;
/// How old cached rules may get, in seconds (decimals allowed), when the table cannot
/// be read; default [`DEFAULT_MAX_STALENESS`].
pub const MAX_STALENESS_ENV: &str = names::GUARD_MAX_STALENESS_SECONDS;
/// `off` turns the guard off (local runs and tests of the handler); anything else, or
/// unset, keeps it on.
pub const SWITCH_ENV: &str = names::GUARD;
/// Default bound on the age of the rules a call is decided with.
pub const DEFAULT_MAX_STALENESS: Duration = Duration::from_secs(30);

/// What the guard needs besides its rule source.
#[derive(Debug, Clone)]
pub struct GuardConfig {
    /// The tool whose call rules apply.
    pub tool_id: String,
    /// The keys that verify signed contexts.
    pub keys: KeyRing,
    /// The oldest rules may be when the source cannot be read; they are re-read once
    /// half as old.
    pub max_staleness: Duration,
}

impl GuardConfig {
    /// A configuration with the default staleness bound.
    pub fn new(tool_id: impl Into<String>, keys: KeyRing) -> Self {
        Self { tool_id: tool_id.into(), keys, max_staleness: DEFAULT_MAX_STALENESS }
    }

    /// This configuration with another staleness bound.
    #[must_use]
    pub fn with_max_staleness(mut self, max_staleness: Duration) -> Self {
        self.max_staleness = max_staleness;
        self
    }

    /// Reads [`TOOL_ID_ENV`], [`KEYS_ENV`] and [`MAX_STALENESS_ENV`] through `var`
    /// (`std::env::var` in a Lambda); `Err` names every problem.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let mut vars = Vars::new(var);
        let tool_id =
            vars.required(TOOL_ID_ENV, "the registry tool whose rules guard this function");
        let keys =
            vars.required_parsed(KEYS_ENV, "the key ring verifying signed contexts", |text| {
                KeyRing::parse(text)
            });
        let max_staleness = vars
            .parsed(MAX_STALENESS_ENV, |text| match text.parse::<f64>() {
                Ok(s) if s.is_finite() && (0.0..=86_400.0).contains(&s) => {
                    Ok(Duration::from_secs_f64(s))
                }
                _ => Err("must be a number of seconds from 0 to 86400"),
            })
            .unwrap_or(DEFAULT_MAX_STALENESS);
        vars.finish()?;
        let keys = keys.ok_or_else(|| ConfigError::missing(KEYS_ENV, "the key ring"))?;
        Ok(Self { tool_id, keys, max_staleness })
    }
}

/// Whether [`SWITCH_ENV`] turns the guard off.
pub fn switched_off(var: impl Fn(&str) -> Option<String>) -> bool {
    var(SWITCH_ENV).is_some_and(|v| v.trim().eq_ignore_ascii_case("off"))
}
