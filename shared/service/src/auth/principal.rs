//! The authenticated caller and the pluggable authenticator contract.

use serde::{Deserialize, Serialize};

/// What a caller may do; roles are ordered, each includes the ones below it, except
/// `approver`: it reads, and approves or rejects proposals (as admin does), which
/// `editor` does not (see `service::can_approve`), and tools' access tokens, which only
/// `runtime` obtains (see `service::can_obtain_tokens`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// May read definitions (and resolve agents).
    Reader,
    /// A chat runtime: may also obtain tools' short-lived access tokens
    /// (`POST /tools/{id}/token`), which no other role may (decision 70).
    Runtime,
    /// May also approve and reject proposals (never its own), but not write.
    Approver,
    /// May also create and change definitions.
    Editor,
    /// May also delete definitions and retire them.
    Admin,
}

impl Role {
    /// The wire name: `reader`, `runtime`, `approver`, `editor` or `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reader => "reader",
            Self::Runtime => "runtime",
            Self::Approver => "approver",
            Self::Editor => "editor",
            Self::Admin => "admin",
        }
    }
}

/// An authenticated caller: the name recorded in `createdBy`/`lastModifiedBy`, and a role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Principal {
    /// Principal name.
    pub name: String,
    /// Role of the principal.
    pub role: Role,
}

impl Principal {
    /// A principal with the given name and role.
    pub fn new(name: impl Into<String>, role: Role) -> Self {
        Self { name: name.into(), role }
    }

    /// True when the principal's role is at least `role`.
    pub fn has(&self, role: Role) -> bool {
        self.role >= role
    }
}

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
