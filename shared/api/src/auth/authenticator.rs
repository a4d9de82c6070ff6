//! The pluggable authenticator contract: request metadata in, a [`Principal`] out.

use registry_service::auth::Principal;

/// Why a request could not be authenticated (always a 401).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No credentials were presented.
    #[error("missing credentials: send `Authorization: Bearer <token>`")]
    Missing,
    /// Credentials were presented but are not valid.
    #[error("invalid credentials")]
    Invalid,
    /// The request carries no identity this authenticator understands; the message says
    /// how to authenticate.
    #[error("{0}")]
    Unidentified(String),
    /// The caller is authenticated but granted no role.
    #[error("`{principal}` is authenticated but granted no role")]
    NoRole {
        /// Who the caller is.
        principal: String,
    },
}

/// Turns request headers (or any request metadata) into a [`Principal`]. The local
/// server uses bearer tokens ([`crate::auth::TokenAuth`]); the Lambda plugs in the API
/// Gateway caller identity found in the request extensions.
pub trait Authenticator: Send + Sync + 'static {
    /// Authenticates the request described by `parts`.
    fn authenticate(&self, parts: &http::request::Parts) -> Result<Principal, AuthError>;
}
