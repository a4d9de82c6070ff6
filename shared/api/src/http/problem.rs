//! RFC 9457 problem details: the one error body of the API.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use registry_core::Violation;
use serde::Serialize;

use crate::auth::AuthError;
use crate::service::ServiceError;

/// Media type of problem responses.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// Stable machine-readable error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Code {
    /// The input breaks one or more rules; see `errors`.
    ValidationFailed,
    /// The body is not well-formed JSON, or an object in it repeats a key.
    MalformedJson,
    /// A header or parameter is malformed.
    BadRequest,
    /// The body is larger than 1 MiB.
    PayloadTooLarge,
    /// The body is not JSON.
    UnsupportedMediaType,
    /// No or invalid credentials.
    Unauthenticated,
    /// The caller's role does not allow this.
    Forbidden,
    /// No such resource or route.
    NotFound,
    /// The route does not support this method.
    MethodNotAllowed,
    /// `If-Match` (or body `version`) does not match the stored version.
    VersionMismatch,
    /// `If-Match` (or body `version`) is required.
    PreconditionRequired,
    /// The request conflicts with the stored state (exists already, retired).
    Conflict,
    /// A tool is still used by agents.
    InUse,
    /// The agent is published to Bedrock; unpublish it first.
    Published,
    /// A resolution refused by the agent's access rules (see `decision`).
    AccessDenied,
    /// A resolution refused because the agent is disabled or retired, or the caller is
    /// outside its rollout (see `reason`).
    NotAvailable,
    /// The request URI is longer than the server accepts.
    UriTooLong,
    /// The request headers are larger than the server accepts.
    HeadersTooLarge,
    /// Too many requests in flight; retry after `Retry-After` seconds.
    Overloaded,
    /// The request did not complete within the server's request timeout.
    Timeout,
    /// The store is temporarily unavailable; retry.
    Unavailable,
    /// AWS (or the local endpoint standing in for it) refused or failed a call.
    UpstreamFailed,
    /// A server-side failure.
    Internal,
}

impl Code {
    /// The problem `type` URI of this code.
    pub fn type_uri(self) -> &'static str {
        match self {
            Self::ValidationFailed => "urn:agent-registry:problem:validation-failed",
            Self::MalformedJson => "urn:agent-registry:problem:malformed-json",
            Self::BadRequest => "urn:agent-registry:problem:bad-request",
            Self::PayloadTooLarge => "urn:agent-registry:problem:payload-too-large",
            Self::UnsupportedMediaType => "urn:agent-registry:problem:unsupported-media-type",
            Self::Unauthenticated => "urn:agent-registry:problem:unauthenticated",
            Self::Forbidden => "urn:agent-registry:problem:forbidden",
            Self::NotFound => "urn:agent-registry:problem:not-found",
            Self::MethodNotAllowed => "urn:agent-registry:problem:method-not-allowed",
            Self::VersionMismatch => "urn:agent-registry:problem:version-mismatch",
            Self::PreconditionRequired => "urn:agent-registry:problem:precondition-required",
            Self::Conflict => "urn:agent-registry:problem:conflict",
            Self::InUse => "urn:agent-registry:problem:in-use",
            Self::Published => "urn:agent-registry:problem:published",
            Self::AccessDenied => "urn:agent-registry:problem:access-denied",
            Self::NotAvailable => "urn:agent-registry:problem:not-available",
            Self::UriTooLong => "urn:agent-registry:problem:uri-too-long",
            Self::HeadersTooLarge => "urn:agent-registry:problem:headers-too-large",
            Self::Overloaded => "urn:agent-registry:problem:overloaded",
            Self::Timeout => "urn:agent-registry:problem:timeout",
            Self::Unavailable => "urn:agent-registry:problem:unavailable",
            Self::UpstreamFailed => "urn:agent-registry:problem:upstream-failed",
            Self::Internal => "urn:agent-registry:problem:internal",
        }
    }
}

/// An RFC 9457 problem: `type`, `title`, `status`, `detail`, a stable `code` and every
/// violation in `errors` with its JSON Pointer path.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// URI identifying the problem type.
    #[serde(rename = "type")]
    pub type_uri: &'static str,
    /// Short summary of the status.
    pub title: &'static str,
    /// HTTP status code.
    pub status: u16,
    /// What went wrong in this occurrence.
    pub detail: String,
    /// Stable machine-readable code.
    pub code: Code,
    /// Every violation, each located by a JSON Pointer.
    pub errors: Vec<Violation>,
    /// Agents that use the tool (`IN_USE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Vec<String>>,
    /// The stored version (`VERSION_MISMATCH`), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<u64>)]
    pub current_version: Option<std::num::NonZeroU64>,
}

impl Problem {
    /// A problem with no violations.
    pub fn new(status: StatusCode, code: Code, detail: impl Into<String>) -> Self {
        Self {
            type_uri: code.type_uri(),
            title: status.canonical_reason().unwrap_or("Error"),
            status: status.as_u16(),
            detail: detail.into(),
            code,
            errors: Vec::new(),
            agents: None,
            current_version: None,
        }
    }

    /// A 400 listing every violation.
    pub fn validation(errors: Vec<Violation>) -> Self {
        let detail = match errors.len() {
            1 => "the request has 1 invalid value".to_owned(),
            n => format!("the request has {n} invalid values"),
        };
        Self { errors, ..Self::new(StatusCode::BAD_REQUEST, Code::ValidationFailed, detail) }
    }

    /// A 400 for a malformed header, parameter or path.
    pub fn bad_request(path: impl Into<String>, message: impl Into<String>) -> Self {
        let message = message.into();
        Self {
            errors: vec![Violation { path: path.into(), message: message.clone() }],
            ..Self::new(StatusCode::BAD_REQUEST, Code::BadRequest, message)
        }
    }

    /// A 404 for an unknown resource or route.
    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, Code::NotFound, detail)
    }

    /// A 500 that reveals nothing.
    pub fn internal() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            Code::Internal,
            "internal error; see the server log",
        )
    }

    /// The HTTP status.
    pub fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    /// A response of this problem's status with `body` (this problem, or one built on
    /// it) as `application/problem+json`; a 401 also challenges for a bearer token, and
    /// an `OVERLOADED` 503 says when to retry (`Retry-After`).
    pub fn respond(&self, body: &impl Serialize) -> Response {
        let status = self.status_code();
        let body = serde_json::to_vec(body).unwrap_or_else(|_| b"{}".to_vec());
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        if self.code == Code::Overloaded {
            headers.insert(
                header::RETRY_AFTER,
                HeaderValue::from(crate::http::limits::ServerLimits::RETRY_AFTER_SECONDS),
            );
        }
        if status == StatusCode::UNAUTHORIZED {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"agent-registry\""),
            );
        }
        response
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        self.respond(&self)
    }
}

impl From<AuthError> for Problem {
    fn from(err: AuthError) -> Self {
        match err {
            AuthError::NoRole { .. } => {
                Self::new(StatusCode::FORBIDDEN, Code::Forbidden, err.to_string())
            }
            _ => Self::new(StatusCode::UNAUTHORIZED, Code::Unauthenticated, err.to_string()),
        }
    }
}

impl From<ServiceError> for Problem {
    fn from(err: ServiceError) -> Self {
        let detail = err.to_string();
        match err {
            ServiceError::Invalid(errors) => Self::validation(errors),
            ServiceError::NotFound { .. } => Self::not_found(detail),
            ServiceError::AlreadyExists { current, .. } => Self {
                current_version: std::num::NonZeroU64::new(current),
                ..Self::new(StatusCode::CONFLICT, Code::Conflict, detail)
            },
            ServiceError::VersionMismatch { current, .. } => Self {
                current_version: current.and_then(std::num::NonZeroU64::new),
                ..Self::new(StatusCode::PRECONDITION_FAILED, Code::VersionMismatch, detail)
            },
            ServiceError::Retired { .. } | ServiceError::Contention => {
                Self::new(StatusCode::CONFLICT, Code::Conflict, detail)
            }
            ServiceError::InUse { agents, .. } => Self {
                agents: Some(agents),
                ..Self::new(StatusCode::CONFLICT, Code::InUse, detail)
            },
            ServiceError::Forbidden(_) => Self::new(StatusCode::FORBIDDEN, Code::Forbidden, detail),
            ServiceError::Unavailable(reason) => {
                tracing::warn!(%reason, "store unavailable");
                Self::new(StatusCode::SERVICE_UNAVAILABLE, Code::Unavailable, detail)
            }
            ServiceError::Internal(reason) => {
                tracing::error!(%reason, "internal error");
                Self::internal()
            }
            ServiceError::Published(_) => Self::new(StatusCode::CONFLICT, Code::Published, detail),
            ServiceError::Overloaded(_) => {
                Self::new(StatusCode::SERVICE_UNAVAILABLE, Code::Overloaded, detail)
            }
            ServiceError::Upstream(_) => {
                Self::new(StatusCode::BAD_GATEWAY, Code::UpstreamFailed, detail)
            }
            ServiceError::ProposalNotFound(_) | ServiceError::ServerNotFound { .. } => {
                Self::not_found(detail)
            }
            ServiceError::ProposalConflict(_) => {
                Self::new(StatusCode::CONFLICT, Code::Conflict, detail)
            }
        }
    }
}
