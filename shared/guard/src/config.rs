//! The guard's configuration, from the function's environment.

use std::time::Duration;

use std::sync::Arc;

use registry_config::{ConfigError, Vars, names};
use registry_token::{DEFAULT_AUDIENCE, KeySource, RemoteJwks, Verifier};

/// The registry tool id whose call rules guard this function (e.g. `convert_units@1.0.0`).
pub const TOOL_ID_ENV: &str = names::TOOL_ID;
/// The registry's DynamoDB table.
pub const TABLE_ENV: &str = names::TABLE;
/// A DynamoDB-API endpoint URL instead of AWS's (local servers in tests), as the
/// registry's own functions read it.
pub const ENDPOINT_ENV: &str = names::DYNAMODB_ENDPOINT_URL;
/// The registry's JWKS URL (`<registry>/.well-known/jwks.json`): the public keys that
/// verify principal tokens, fetched and cached.
pub const JWKS_URL_ENV: &str = names::JWKS_URL;
/// The registry's JWKS document itself, instead of [`JWKS_URL_ENV`].
pub const JWKS_ENV: &str = names::JWKS;
/// The `iss` principal tokens must carry: the registry's issuer (its URL).
pub const ISSUER_ENV: &str = names::TOKEN_ISSUER;
/// The `aud` principal tokens must carry (default `agent-registry`).
pub const AUDIENCE_ENV: &str = names::TOKEN_AUDIENCE;
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

    /// Reads [`TOOL_ID_ENV`], [`ISSUER_ENV`], [`JWKS_URL_ENV`] or [`JWKS_ENV`],
    /// [`AUDIENCE_ENV`] and [`MAX_STALENESS_ENV`] through `var` (`std::env::var` in a
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

/// The registry's public keys ([`JWKS_ENV`], else [`JWKS_URL_ENV`]), with the issuer
/// ([`ISSUER_ENV`]) and audience ([`AUDIENCE_ENV`]) tokens must carry; `None` with the
/// problems noted in `vars`.
pub fn key_source(vars: &mut Vars<'_>) -> Option<KeySource> {
    let issuer = vars.required(ISSUER_ENV, "the registry's issuer (its URL)");
    let audience = vars.optional(AUDIENCE_ENV).unwrap_or_else(|| DEFAULT_AUDIENCE.to_owned());
    let url = vars.optional(JWKS_URL_ENV);
    let document = vars
        .parsed(JWKS_ENV, |text| Verifier::from_jwks_json(text, issuer.clone(), audience.clone()));
    match (url, document) {
        (_, Some(verifier)) => Some(KeySource::Document(Arc::new(verifier))),
        (Some(url), None) => Some(KeySource::Url(RemoteJwks::new(url, issuer, audience))),
        (None, None) => {
            // named with the other problems
            vars.required(
                JWKS_URL_ENV,
                "the registry's JWKS URL (or a JWKS document in REGISTRY_JWKS)",
            );
            None
        }
    }
}

/// [`MAX_STALENESS_ENV`], default [`DEFAULT_MAX_STALENESS`]; a bad value is noted in `vars`.
pub fn max_staleness(vars: &mut Vars<'_>) -> Duration {
    vars.parsed(MAX_STALENESS_ENV, |text| match text.parse::<f64>() {
        Ok(s) if s.is_finite() && (0.0..=86_400.0).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => Err("must be a number of seconds from 0 to 86400"),
    })
    .unwrap_or(DEFAULT_MAX_STALENESS)
}

/// Whether [`SWITCH_ENV`] turns the guard off.
pub fn switched_off(var: impl Fn(&str) -> Option<String>) -> bool {
    var(SWITCH_ENV).is_some_and(|v| v.trim().eq_ignore_ascii_case("off"))
}
