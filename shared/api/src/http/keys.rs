//! The principal token's keys (decisions 83, 84): the public key set and the issuer's
//! metadata for every verifier (no authentication, cacheable), and the admin's view and
//! changes of the ring (`keys list`, `keys rotate`, `keys remove`).

use axum::extract::State;
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};
use registry_token::{ALGORITHM, JWKS_MAX_AGE, JWKS_PATH, KeyRing, TokenError};
use serde::Serialize;

use crate::http::auth::Admin;
use crate::http::json::json_ok;
use crate::http::params::Id;
use crate::http::problem::{Code, Problem};
use crate::http::responses::CallErrors;
use crate::principal_keys::{KeysError, PrincipalKeys};
use crate::service::Resolver;

/// The issuer's OpenID Provider metadata (OpenID Connect Discovery 1.0 section 3, RFC
/// 8414 section 2): every member both make REQUIRED for an issuer of signed tokens.
/// Principal tokens are issued by resolution, not through OAuth: no grant type is
/// supported, so there is no authorization endpoint and no token endpoint (the one
/// deliberate omission, docs/discovery.md).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct OpenIdConfiguration {
    /// The `iss` of every token.
    pub issuer: String,
    /// Where the public keys are.
    pub jwks_uri: String,
    /// `id_token`: what the registry issues is a signed JWT about a subject.
    pub response_types_supported: Vec<&'static str>,
    /// `public`: the subject is the agent id, the same for every verifier.
    pub subject_types_supported: Vec<&'static str>,
    /// The one signing algorithm.
    pub id_token_signing_alg_values_supported: Vec<String>,
    /// None: tokens come from resolution, no OAuth grant.
    pub grant_types_supported: Vec<&'static str>,
}

fn keys_of(resolver: &Resolver) -> Result<&PrincipalKeys, Problem> {
    resolver
        .principal_keys()
        .map(AsRef::as_ref)
        .ok_or_else(|| Problem::not_found("this registry issues no principal tokens"))
}

/// `response` with the `Cache-Control` verifiers may keep the key set and the metadata
/// by ([`JWKS_MAX_AGE`]).
fn cacheable(mut response: Response) -> Response {
    let max_age = format!("public, max-age={}", JWKS_MAX_AGE.as_secs());
    if let Ok(value) = HeaderValue::try_from(max_age) {
        response.headers_mut().insert(header::CACHE_CONTROL, value);
    }
    response
}

/// The public keys that verify principal tokens (RFC 7517; no authentication). A
/// rotated-out key stays until its last token expires or an admin removes it.
#[utoipa::path(get, path = "/.well-known/jwks.json", tag = "system",
    responses(
        (status = 200, description = "The JWK set: each key with its `kid`, `use` `sig` and the one `alg` it signs with (`RS256`: `kty` `RSA`; `ES256`: `kty` `EC`, `crv` `P-256`; `EdDSA`: `kty` `OKP`, `crv` `Ed25519`); `Cache-Control: public, max-age=300`", body = Object),
        (status = 404, description = "This registry issues no principal tokens", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn jwks(State(resolver): State<Resolver>) -> Result<Response, Problem> {
    let keys = keys_of(&resolver)?;
    keys.refresh().await;
    Ok(cacheable(json_ok(&keys.ring().jwks())))
}

/// The issuer's metadata (OpenID Connect Discovery 1.0 / RFC 8414: `issuer`, `jwks_uri`
/// and the required members; no authentication), for gateways that find the key set
/// from the issuer.
#[utoipa::path(get, path = "/.well-known/openid-configuration", tag = "system",
    responses(
        (status = 200, description = "`issuer`, `jwks_uri` and the members OIDC Discovery and RFC 8414 require (no authorization or token endpoint: no OAuth grant); `Cache-Control: public, max-age=300`", body = OpenIdConfiguration),
        (status = 404, description = "This registry issues no principal tokens", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn openid_configuration(State(resolver): State<Resolver>) -> Result<Response, Problem> {
    let keys = keys_of(&resolver)?;
    let issuer = keys.settings().issuer.clone();
    // OIDC Discovery 1.0 section 3: RS256 is always listed; then the ring's others
    let mut algorithms = vec![ALGORITHM.to_owned()];
    for key in keys.ring().keys() {
        let name = key.key.algorithm().as_str();
        if !algorithms.iter().any(|a| a == name) {
            algorithms.push(name.to_owned());
        }
    }
    let jwks_uri = format!("{}{JWKS_PATH}", issuer.trim_end_matches('/'));
    let metadata = OpenIdConfiguration {
        issuer,
        jwks_uri,
        response_types_supported: vec!["id_token"],
        subject_types_supported: vec!["public"],
        id_token_signing_alg_values_supported: algorithms,
        grant_types_supported: Vec::new(),
    };
    Ok(cacheable(json_ok(&metadata)))
}

/// One key of the ring, as the admin sees it (never the private key).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeyView {
    /// The key id (RFC 7638 thumbprint), the `kid` of its tokens.
    pub kid: String,
    /// The one algorithm it signs with: `RS256`, `ES256` or `EdDSA`.
    pub algorithm: &'static str,
    /// Whether it signs new tokens (the one key that cannot be removed).
    pub signing: bool,
    /// When it was made (Unix seconds).
    pub created_at: i64,
    /// When another key took over signing (Unix seconds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<i64>,
    /// When its last token expires (Unix seconds): it may be removed from then on
    /// without refusing a token (it is dropped at the next rotation after).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_valid_until: Option<i64>,
}

fn view(ring: &KeyRing, ttl_seconds: i64) -> Vec<KeyView> {
    ring.keys()
        .iter()
        .enumerate()
        .map(|(at, k)| KeyView {
            kid: k.key.kid().to_owned(),
            algorithm: k.key.algorithm().as_str(),
            signing: at == 0,
            created_at: k.created_at,
            retired_at: k.retired_at,
            tokens_valid_until: k.retired_at.map(|r| r.saturating_add(ttl_seconds)),
        })
        .collect()
}

/// The keys after a change, or the problem: no such key (404), the signing key (409),
/// the store failing (503).
fn changed(
    result: Result<std::sync::Arc<KeyRing>, KeysError>,
    keys: &PrincipalKeys,
) -> Result<Response, Problem> {
    match result {
        Ok(ring) => Ok(json_ok(&view(&ring, keys.settings().ttl_seconds))),
        Err(KeysError::Token(e @ TokenError::NoSuchKey(_))) => {
            Err(Problem::not_found(e.to_string()))
        }
        Err(KeysError::Token(e @ TokenError::SigningKeyKept(_))) => {
            Err(Problem::new(StatusCode::CONFLICT, Code::Conflict, e.to_string()))
        }
        Err(e) => {
            tracing::error!(error = %e, "the signing keys could not be changed");
            Err(Problem::new(StatusCode::SERVICE_UNAVAILABLE, Code::Unavailable, e.to_string()))
        }
    }
}

/// The principal token's signing keys (admin only): the signing one first.
#[utoipa::path(get, path = "/keys", tag = "system",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The keys, the signing one first", body = Vec<KeyView>),
        (status = 404, description = "This registry issues no principal tokens", body = Problem, content_type = "application/problem+json"),
        CallErrors,
    ))]
pub async fn list_keys(
    State(resolver): State<Resolver>,
    _admin: Admin,
) -> Result<Response, Problem> {
    let keys = keys_of(&resolver)?;
    keys.refresh().await;
    Ok(json_ok(&view(&keys.ring(), keys.settings().ttl_seconds)))
}

/// A new signing key (admin only): new tokens carry its `kid`; the old key stays in the
/// key set (tokens it signed verify) until its last token expires.
#[utoipa::path(post, path = "/keys/rotate", tag = "system",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The keys after the rotation, the new signing one first", body = Vec<KeyView>),
        (status = 404, description = "This registry issues no principal tokens", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The key store could not be read or written (`UNAVAILABLE`)", body = Problem, content_type = "application/problem+json"),
        CallErrors,
    ))]
pub async fn rotate_keys(
    State(resolver): State<Resolver>,
    _admin: Admin,
) -> Result<Response, Problem> {
    let keys = keys_of(&resolver)?;
    changed(keys.rotate().await, keys)
}

/// Removes a retired key (admin only): the tokens it signed are refused from then on. The
/// signing key cannot be removed (409: rotate first).
#[utoipa::path(delete, path = "/keys/{id}", tag = "system",
    params(("id" = String, Path, description = "The key id (`kid`)")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The keys left", body = Vec<KeyView>),
        (status = 404, description = "No such key, or this registry issues no principal tokens", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The key signs (`CONFLICT`): rotate first", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The key store could not be read or written (`UNAVAILABLE`)", body = Problem, content_type = "application/problem+json"),
        CallErrors,
    ))]
pub async fn remove_key(
    State(resolver): State<Resolver>,
    _admin: Admin,
    Id(kid): Id,
) -> Result<Response, Problem> {
    let keys = keys_of(&resolver)?;
    changed(keys.remove(&kid).await, keys)
}
