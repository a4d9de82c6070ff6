//! What every point reads from its environment besides its transport's own settings:
//! the registry's public keys (with the issuer and audience principal tokens carry) and
//! the staleness bound on what it read from the registry.

use std::sync::Arc;
use std::time::Duration;

use registry_config::{Vars, names};
use registry_token::{DEFAULT_AUDIENCE, KeySource, RemoteJwks, Verifier};

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
/// Default bound on the age of the rules a call is decided with.
pub const DEFAULT_MAX_STALENESS: Duration = Duration::from_secs(30);

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
