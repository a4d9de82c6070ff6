//! The problem responses of the OpenAPI document, as typed sets: an operation lists
//! the sets it can answer with (`responses((status = 200, ...), CallErrors, NotFound)`),
//! and each problem response is declared once, here. Every body is a [`Problem`]
//! (`application/problem+json`). The server's limits (414, 431, 503) are added to every
//! operation by [`crate::openapi::document`].

use utoipa::IntoResponses;

use crate::http::problem::Problem;

/// What any authenticated registry call can answer.
#[derive(IntoResponses)]
pub enum CallErrors {
    /// Invalid input (`VALIDATION_FAILED`, `errors` locating each violation), malformed
    /// JSON (`MALFORMED_JSON`) or a malformed path, parameter or header (`BAD_REQUEST`)
    #[response(status = 400, content_type = "application/problem+json")]
    BadRequest(Problem),
    /// No or invalid token
    #[response(status = 401, content_type = "application/problem+json")]
    Unauthenticated(Problem),
    /// Server failure
    #[response(status = 500, content_type = "application/problem+json")]
    Internal(Problem),
}

/// What a call with a JSON body can answer besides [`CallErrors`].
#[derive(IntoResponses)]
pub enum BodyErrors {
    /// Body over 1 MiB
    #[response(status = 413, content_type = "application/problem+json")]
    PayloadTooLarge(Problem),
    /// Not JSON
    #[response(status = 415, content_type = "application/problem+json")]
    UnsupportedMediaType(Problem),
}

/// A call naming a definition (or a version of it) that does not exist.
#[derive(IntoResponses)]
pub enum NotFound {
    /// No such definition or version
    #[response(status = 404, content_type = "application/problem+json")]
    NotFound(Problem),
}

/// A call the caller's role does not allow.
#[derive(IntoResponses)]
pub enum Forbidden {
    /// Role too low (editor to write, admin to delete, retire or publish)
    #[response(status = 403, content_type = "application/problem+json")]
    Forbidden(Problem),
}

/// A change the stored state refuses.
#[derive(IntoResponses)]
pub enum Conflict {
    /// The id exists, the definition is retired (only delete is allowed), the tool is
    /// used by agents (`IN_USE`, naming them) or the agent is published (`PUBLISHED`)
    #[response(status = 409, content_type = "application/problem+json")]
    Conflict(Problem),
}

/// A change naming a version that is not the stored one.
#[derive(IntoResponses)]
pub enum VersionMismatch {
    /// `If-Match` (or the body's `version`) does not match the stored version
    #[response(status = 412, content_type = "application/problem+json")]
    VersionMismatch(Problem),
}

/// A change that must name the version it read.
#[derive(IntoResponses)]
pub enum VersionRequired {
    /// `If-Match` missing
    #[response(status = 428, content_type = "application/problem+json")]
    PreconditionRequired(Problem),
}

/// A call that acts on AWS.
#[derive(IntoResponses)]
pub enum UpstreamErrors {
    /// `UPSTREAM_FAILED`: AWS (or no AWS client configured) refused or failed a call
    #[response(status = 502, content_type = "application/problem+json")]
    UpstreamFailed(Problem),
}
