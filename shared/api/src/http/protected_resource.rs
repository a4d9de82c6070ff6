//! RFC 9728 OAuth 2.0 Protected Resource Metadata for the discovery routes: the
//! document at `/.well-known/oauth-protected-resource`, and the `resource_metadata`
//! parameter of the `WWW-Authenticate: Bearer` challenge on their 401s, so that an MCP
//! client following the MCP authorization spec learns where to authenticate (the
//! issuer of principal tokens) instead of failing on a bare 401.

use axum::extract::State;
use axum::response::Response;
use http::{HeaderMap, HeaderValue, header};
use serde::Serialize;

use crate::http::json::json_ok;
use crate::http::problem::Problem;
use crate::service::Discovery;

/// Where the metadata is, below the registry's URL.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The registry's base URL as clients reach it: the issuer of principal tokens (the
/// registry's configured URL) when it issues them, else `http://` and the request's
/// `Host` when that is a valid authority, else `http://localhost`.
pub fn base_url(discovery: &Discovery, headers: &HeaderMap) -> String {
    if let Some(issuer) = discovery.issuer() {
        return issuer.trim_end_matches('/').to_owned();
    }
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .and_then(|h| h.parse::<http::uri::Authority>().ok())
        .filter(|a| a.as_str().len() <= 255);
    match host {
        Some(authority) => format!("http://{authority}"),
        None => "http://localhost".to_owned(),
    }
}

/// The challenge of a discovery 401: `Bearer` with the registry's realm and where its
/// protected-resource metadata is.
pub fn challenge(discovery: &Discovery, headers: &HeaderMap) -> Option<HeaderValue> {
    let url = format!("{}{METADATA_PATH}", base_url(discovery, headers));
    HeaderValue::try_from(format!(
        "Bearer realm=\"agent-registry\", resource_metadata=\"{}\"",
        url.replace(['"', '\\'], "")
    ))
    .ok()
}

/// RFC 9728 section 2: the protected resource's metadata.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: the registry's URL.
    pub resource: String,
    /// The issuer of principal tokens (its OpenID configuration is at
    /// `<issuer>/.well-known/openid-configuration`); absent when the registry issues
    /// none (only role tokens are accepted then).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub authorization_servers: Vec<String>,
    /// `header`: the token travels as `Authorization: Bearer`.
    pub bearer_methods_supported: Vec<&'static str>,
    /// No OAuth scopes are asked for: a role token or a principal token decides what
    /// the caller sees (docs/discovery.md).
    pub scopes_supported: Vec<String>,
    /// What the resource is.
    pub resource_name: &'static str,
    /// The discovery documentation.
    pub resource_documentation: String,
}

/// The discovery routes' protected-resource metadata (RFC 9728; no authentication).
#[utoipa::path(get, path = "/.well-known/oauth-protected-resource", tag = "discovery",
    responses(
        (status = 200, description = "RFC 9728 protected-resource metadata: `resource`, `authorization_servers` (the principal tokens' issuer), `bearer_methods_supported`", body = ProtectedResourceMetadata),
    ))]
pub async fn protected_resource_metadata(
    State(discovery): State<Discovery>,
    headers: HeaderMap,
) -> Result<Response, Problem> {
    let resource = base_url(&discovery, &headers);
    let metadata = ProtectedResourceMetadata {
        authorization_servers: discovery.issuer().into_iter().collect(),
        bearer_methods_supported: vec!["header"],
        scopes_supported: Vec::new(),
        resource_name: "agent registry discovery",
        resource_documentation: format!("{resource}/openapi.json"),
        resource,
    };
    Ok(json_ok(&metadata))
}
