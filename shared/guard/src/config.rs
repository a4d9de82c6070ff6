//! The guard's configuration, from the function's environment.

use std::time::Duration;

use registry_access::signed::KeyRing;

/// The registry tool id whose call rules guard this function (e.g. `convert_units@1.0.0`).
pub const TOOL_ID_ENV: &str = "REGISTRY_TOOL_ID";
/// The registry's DynamoDB table.
pub const TABLE_ENV: &str = "REGISTRY_TABLE";
/// A DynamoDB-API endpoint URL instead of AWS's (local servers in tests), as the
/// registry's own functions read it.
pub const ENDPOINT_ENV: &str = "DYNAMODB_ENDPOINT";
/// The keys that verify signed principal contexts, in `KeyRing` text form
/// (`keyId:base64secret`, comma or newline separated).
pub const KEYS_ENV: &str = "REGISTRY_CONTEXT_KEYS";
/// How old cached rules may get, in seconds (decimals allowed), when the table cannot
/// be read; default [`DEFAULT_MAX_STALENESS`].
pub const MAX_STALENESS_ENV: &str = "REGISTRY_GUARD_MAX_STALENESS_SECONDS";
/// `off` turns the guard off (local runs and tests of the handler); anything else, or
/// unset, keeps it on.
pub const SWITCH_ENV: &str = "REGISTRY_GUARD";
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
        let mut problems = Vec::new();
        let tool_id = var(TOOL_ID_ENV).filter(|v| !v.trim().is_empty());
        if tool_id.is_none() {
            problems.push(format!("{TOOL_ID_ENV} is not set"));
        }
        let keys = match var(KEYS_ENV) {
            None => {
                problems.push(format!("{KEYS_ENV} is not set"));
                None
            }
            Some(text) => {
                KeyRing::parse(&text).map_err(|e| problems.push(format!("{KEYS_ENV}: {e}"))).ok()
            }
        };
        let max_staleness = match var(MAX_STALENESS_ENV) {
            None => DEFAULT_MAX_STALENESS,
            Some(text) => match text.trim().parse::<f64>() {
                Ok(s) if s.is_finite() && (0.0..=86_400.0).contains(&s) => {
                    Duration::from_secs_f64(s)
                }
                _ => {
                    problems.push(format!(
                        "{MAX_STALENESS_ENV} must be a number of seconds from 0 to 86400, got `{}`",
                        text.chars().take(32).collect::<String>()
                    ));
                    DEFAULT_MAX_STALENESS
                }
            },
        };
        match (tool_id, keys) {
            (Some(tool_id), Some(keys)) if problems.is_empty() => {
                Ok(Self { tool_id: tool_id.trim().to_owned(), keys, max_staleness })
            }
            _ => Err(ConfigError { problems }),
        }
    }
}

/// Why the guard has no configuration: every problem, each naming its variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.join("; "))]
pub struct ConfigError {
    /// The problems, e.g. "REGISTRY_TOOL_ID is not set".
    pub problems: Vec<String>,
}

/// Whether [`SWITCH_ENV`] turns the guard off.
pub fn switched_off(var: impl Fn(&str) -> Option<String>) -> bool {
    var(SWITCH_ENV).is_some_and(|v| v.trim().eq_ignore_ascii_case("off"))
}
