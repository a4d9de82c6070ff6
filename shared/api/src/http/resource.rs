//! Handler bodies shared by agents and tools: call the service, map the result to a
//! response with `ETag` (and `Location` on create).

use axum::Json;
use axum::body::Bytes;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use registry_core::Kind;
use serde::Serialize;
use serde_json::Value;

use crate::auth::Principal;
use crate::http::AppState;
use crate::http::etag::{IfMatch, etag};
use crate::http::params::ListParams;
use crate::http::problem::{Code, Problem};
use crate::service::{Outcome, Resource, ServiceError};

/// Attempts of a write that applies to whatever is current, against writers in other
/// processes (writers in this process are serialised by [`crate::http::AppState::writes`]).
const WRITE_ATTEMPTS: u32 = 8;

/// One page of a list or a version history.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageBody<T> {
    /// The items on this page.
    pub items: Vec<T>,
    /// Cursor for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Collection path of a kind: `/agents` or `/tools`.
pub fn collection(kind: Kind) -> &'static str {
    match kind {
        Kind::Agent => "/agents",
        Kind::Tool => "/tools",
    }
}

/// A single definition with its `ETag`.
fn single<R: Resource>(status: StatusCode, definition: &R) -> Response {
    let mut response = (status, Json(definition)).into_response();
    response.headers_mut().insert(header::ETAG, etag(definition.version()));
    response
}

/// `POST /{kind}s`: 201 with `Location` and `ETag`.
pub async fn create<R: Resource>(
    state: &AppState,
    principal: &Principal,
    definition: R,
) -> Result<Response, Problem> {
    let created = state.registry.create(principal, definition).await?;
    let mut response = single(StatusCode::CREATED, &created);
    let location = format!("{}/{}", collection(R::KIND), created.id());
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    Ok(response)
}

/// A 200 with JSON already encoded.
fn json_bytes(body: Bytes) -> Response {
    let mut response = body.into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// `GET /{kind}s/{id}`.
pub async fn get<R: Resource>(state: &AppState, id: &str) -> Result<Response, Problem> {
    let (version, body) = state.registry.get_json::<R>(id).await?;
    let mut response = json_bytes(body);
    response.headers_mut().insert(header::ETAG, etag(version));
    Ok(response)
}

/// `PUT /{kind}s/{id}`: 201 when created, else 200 (also when unchanged). Without
/// `If-Match` or with `*` it applies to whatever is current: lost races are retried.
pub async fn put<R: Resource>(
    state: &AppState,
    principal: &Principal,
    id: &str,
    if_match: IfMatch,
    definition: R,
) -> Result<Response, Problem> {
    let _writing = follow_current(state, R::KIND, id, if_match).await;
    let mut attempt = 1;
    let written = loop {
        let expected = match if_match {
            IfMatch::Absent => None,
            other => Some(expected_version::<R>(state, id, other).await?),
        };
        match state.registry.apply(principal, id, definition.clone(), expected).await {
            Err(e) if attempt < WRITE_ATTEMPTS && lost_race(&e, if_match) => attempt += 1,
            other => break other?,
        }
    };
    let status = match written.outcome {
        Outcome::Created => StatusCode::CREATED,
        Outcome::Updated | Outcome::Unchanged => StatusCode::OK,
    };
    let mut response = single(status, &written.definition);
    if written.outcome == Outcome::Created {
        let location = format!("{}/{}", collection(R::KIND), written.definition.id());
        if let Ok(value) = HeaderValue::from_str(&location) {
            response.headers_mut().insert(header::LOCATION, value);
        }
    }
    Ok(response)
}

/// `PATCH /{kind}s/{id}`: the expected version comes from `If-Match` or the body's
/// `version`; when both are given they must agree.
pub async fn patch<R: Resource>(
    state: &AppState,
    principal: &Principal,
    id: &str,
    if_match: IfMatch,
    patch: Value,
) -> Result<Response, Problem> {
    let body_version = match patch.get("version") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            Problem::validation(vec![registry_core::Violation {
                path: "/version".into(),
                message: "must be the expected version, a positive integer".into(),
            }])
        })?),
    };
    // Only a bare `If-Match: *` follows the current version when it moves.
    let follows_current = if_match == IfMatch::Any && body_version.is_none();
    let _writing = match follows_current {
        true => Some(state.writes.lock(R::KIND, id).await),
        false => None,
    };
    let mut attempt = 1;
    loop {
        let expected = match (if_match, body_version) {
            (IfMatch::Absent, None) => return Err(precondition_required()),
            (IfMatch::Absent, Some(v)) => v,
            (other, None) => expected_version::<R>(state, id, other).await?,
            (other, Some(v)) => {
                let header = expected_version::<R>(state, id, other).await?;
                if header != v {
                    return Err(Problem::new(
                        StatusCode::PRECONDITION_FAILED,
                        Code::VersionMismatch,
                        format!("If-Match ({header}) and body version ({v}) disagree"),
                    ));
                }
                v
            }
        };
        match state.registry.patch::<R>(principal, id, &patch, expected).await {
            Err(ServiceError::VersionMismatch { .. })
                if follows_current && attempt < WRITE_ATTEMPTS =>
            {
                attempt += 1;
            }
            other => return Ok(single(StatusCode::OK, &other?.definition)),
        }
    }
}

/// `DELETE /{kind}s/{id}`: 204.
pub async fn delete<R: Resource>(
    state: &AppState,
    principal: &Principal,
    id: &str,
    if_match: IfMatch,
) -> Result<Response, Problem> {
    if if_match == IfMatch::Absent {
        return Err(precondition_required());
    }
    let _writing = follow_current(state, R::KIND, id, if_match).await;
    let mut attempt = 1;
    loop {
        let expected = expected_version::<R>(state, id, if_match).await?;
        match state.registry.delete::<R>(principal, id, expected).await {
            Err(e) if attempt < WRITE_ATTEMPTS && lost_race(&e, if_match) => attempt += 1,
            other => {
                other?;
                return Ok(StatusCode::NO_CONTENT.into_response());
            }
        }
    }
}

/// `GET /{kind}s`.
pub async fn list<R: Resource>(state: &AppState, params: &ListParams) -> Result<Response, Problem> {
    let query = params.to_query(R::KIND, true)?;
    Ok(json_bytes(state.registry.list_json::<R>(&query).await?))
}

/// `GET /{kind}s/{id}/versions`.
pub async fn versions<R: Resource>(
    state: &AppState,
    id: &str,
    params: &ListParams,
) -> Result<Response, Problem> {
    let query = params.to_query(R::KIND, false)?;
    let page = state.registry.versions::<R>(id, &query).await?;
    Ok(Json(PageBody { items: page.items, next_cursor: page.next_cursor }).into_response())
}

/// `GET /{kind}s/{id}/versions/{v}`.
pub async fn version<R: Resource>(state: &AppState, id: &str, v: u64) -> Result<Response, Problem> {
    let definition: R = state.registry.version(id, v).await?;
    Ok(single(StatusCode::OK, &definition))
}

/// The version an `If-Match` stands for: `*` is the current version (the definition
/// must exist); a tag this server never issued fails.
async fn expected_version<R: Resource>(
    state: &AppState,
    id: &str,
    if_match: IfMatch,
) -> Result<u64, Problem> {
    match if_match {
        IfMatch::Version(v) => Ok(v),
        IfMatch::Any | IfMatch::Absent => {
            let current: R = state.registry.get(id).await.map_err(|e| match e {
                crate::service::ServiceError::NotFound { .. } if if_match == IfMatch::Any => {
                    Problem::new(
                        StatusCode::PRECONDITION_FAILED,
                        Code::VersionMismatch,
                        format!("If-Match: * but {} `{id}` does not exist", R::KIND.as_str()),
                    )
                }
                other => other.into(),
            })?;
            Ok(current.version())
        }
        IfMatch::Never => Err(Problem::new(
            StatusCode::PRECONDITION_FAILED,
            Code::VersionMismatch,
            "If-Match names no version of this definition (expected a tag such as \"3\")",
        )),
    }
}

/// For a write that applies to whatever is current (`If-Match: *`, or none on PUT),
/// the definition's write lock; writes naming a version need none (the store checks).
async fn follow_current(
    state: &AppState,
    kind: registry_core::Kind,
    id: &str,
    if_match: IfMatch,
) -> Option<tokio::sync::OwnedMutexGuard<()>> {
    match if_match {
        IfMatch::Any | IfMatch::Absent => Some(state.writes.lock(kind, id).await),
        IfMatch::Version(_) | IfMatch::Never => None,
    }
}

/// Whether `error` is a lost race that a write applying to "whatever is current"
/// (`If-Match: *`, or a PUT without `If-Match`) retries.
fn lost_race(error: &ServiceError, if_match: IfMatch) -> bool {
    match if_match {
        IfMatch::Any => matches!(error, ServiceError::VersionMismatch { .. }),
        IfMatch::Absent => matches!(
            error,
            ServiceError::Contention
                | ServiceError::VersionMismatch { .. }
                | ServiceError::AlreadyExists { .. }
        ),
        IfMatch::Version(_) | IfMatch::Never => false,
    }
}

fn precondition_required() -> Problem {
    Problem::new(
        StatusCode::PRECONDITION_REQUIRED,
        Code::PreconditionRequired,
        "send `If-Match: \"<version>\"` (or `version` in the body) with the version you read",
    )
}
