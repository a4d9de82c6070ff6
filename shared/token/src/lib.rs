#![doc = include_str!("../README.md")]

mod algorithm;
mod error;
mod foreign;
#[cfg(feature = "issue")]
mod keys;
mod principal;
#[cfg(feature = "fetch")]
mod remote;
#[cfg(feature = "issue")]
mod reuse;
mod verify;

pub use algorithm::{ALGORITHMS, SigningAlgorithm, UnknownAlgorithm};
pub use error::TokenError;
pub use foreign::{issuer_of, unverified_claims};
#[cfg(feature = "issue")]
pub use keys::{KeyRing, RingKey, SigningKey, TokenRequest};
pub use principal::{Actor, Principal};
#[cfg(feature = "fetch")]
pub use remote::{KeySource, RemoteJwks, UNKNOWN_KID_REFETCH};
#[cfg(feature = "issue")]
pub use reuse::{IssuedTokens, MAX_REUSED_BYTES, REUSE_MARGIN_SECONDS, reuse_margin};
pub use verify::Verifier;

/// Re-exported so that callers name the JWKS types of the crate that reads them.
pub use jsonwebtoken::jwk::{Jwk, JwkSet};

/// The session attribute (and header value) that carries the token.
pub const SESSION_ATTRIBUTE: &str = "registryPrincipal";
/// The HTTP header a principal token travels in to the registry (the token broker,
/// `authorize`); a refused one is a 400 at `/headers/X-Registry-Principal`.
pub const PRINCIPAL_HEADER: &str = "X-Registry-Principal";
/// The HTTP header naming the Bedrock session a call arrived in: with a principal
/// token it must be the token's `sid`, else a 400 at `/headers/X-Registry-Session`.
pub const SESSION_HEADER: &str = "X-Registry-Session";
/// How long a token is valid by default, in seconds (one hour).
pub const DEFAULT_TTL_SECONDS: i64 = 3_600;
/// Longest token, in bytes: the attribute stays well within what Bedrock passes to every
/// action-group invocation.
pub const MAX_TOKEN_BYTES: usize = 8 * 1024;
/// The algorithm of new keys unless configured otherwise (decisions 83, 113): API
/// Gateway's JWT authorizers accept RSA keys only.
pub const ALGORITHM: &str = "RS256";
/// How far ahead of a verifier's clock a token's `nbf` or `iat` may lie (clocks of the
/// issuing registry and of an enforcement point differ; `iat` is whole seconds). `exp`
/// has no such allowance: a token is refused from `exp` on.
pub const CLOCK_SKEW_SECONDS: i64 = 60;
/// The claim holding the request context the resolution decided on.
pub const CONTEXT_CLAIM: &str = "ctx";
/// The audience a token is issued for when none is configured.
pub const DEFAULT_AUDIENCE: &str = "agent-registry";
/// How long a key set may be used before it is fetched again: the registry's
/// `Cache-Control: max-age` on it, and a verifier's refetch age, so a removed key stops
/// verifying within it.
pub const JWKS_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(300);
/// Where an issuer publishes its key set, below its URL.
pub const JWKS_PATH: &str = "/.well-known/jwks.json";
/// Where an issuer publishes its OpenID Provider metadata, below its URL.
pub const OPENID_CONFIGURATION_PATH: &str = "/.well-known/openid-configuration";
