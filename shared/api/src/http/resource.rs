//! The handlers of agents and tools alike, generic over the kind ([`Routed`]): call the
//! service, map the result to a response with `ETag` (and `Location` on create). Each
//! kind's documented routes ([`crate::http::resource_routes`]) are these handlers.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRef, State};
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use registry_core::Kind;
use serde_json::Value;

use crate::http::AppState;
use crate::http::auth::{Admin, Editor, Reader};
use crate::http::etag::{IfMatch, etag};
use crate::http::json::{JsonBody, MergePatchBody};
use crate::http::params::{Id, IdVersion, ListParams};
use crate::http::problem::{Code, Problem};
use crate::http::proposals::{ProposalNote, proposed_response};
use crate::http::routed::Routed;
pub use crate::service::PageBody;
use crate::service::{Catalog, Outcome, Precondition, Resource, ServiceError, Written};

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

/// `POST /{kind}s`: 201 with `Location` and `ETag` (202 with the proposal where review
/// is required).
pub async fn create<R: Routed>(
    State(state): State<AppState>,
    State(catalog): State<Catalog>,
    Editor(principal): Editor,
    query: R::WriteQuery,
    ProposalNote(note): ProposalNote,
    JsonBody(definition): JsonBody<R>,
) -> Result<Response, Problem> {
    R::before_write(&state, query, &definition).await?;
    let written = catalog.create_written(&principal, definition, note.as_deref()).await?;
    Ok(written_response(&written))
}

/// The response of a write: 201 created, 200 changed or unchanged, 202 proposed.
fn written_response<R: Resource>(written: &Written<R>) -> Response {
    match (&written.outcome, &written.proposal) {
        (Outcome::Proposed, Some(proposal)) => proposed_response(proposal),
        (Outcome::Created, _) => created_response(&written.definition),
        _ => single(StatusCode::OK, &written.definition),
    }
}

/// A 201 with the created definition, its `ETag` and `Location`.
fn created_response<R: Resource>(created: &R) -> Response {
    let mut response = single(StatusCode::CREATED, created);
    let location = format!("{}/{}", collection(R::KIND), created.id());
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
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
pub async fn get<R: Routed>(
    State(catalog): State<Catalog>,
    _caller: Reader,
    Id(id): Id,
) -> Result<Response, Problem> {
    let (version, body) = catalog.get_json::<R>(&id).await?;
    let mut response = json_bytes(body);
    response.headers_mut().insert(header::ETAG, etag(version));
    Ok(response)
}

/// `PUT /{kind}s/{id}`: 201 when created, else 200 (also when unchanged). Without
/// `If-Match` or with `*` it applies to whatever is current (the service retries lost
/// races).
pub async fn put<R: Routed>(
    State(state): State<AppState>,
    Editor(principal): Editor,
    Id(id): Id,
    if_match: IfMatch,
    query: R::WriteQuery,
    ProposalNote(note): ProposalNote,
    JsonBody(definition): JsonBody<R>,
) -> Result<Response, Problem> {
    R::before_write(&state, query, &definition).await?;
    let precondition = match if_match {
        IfMatch::Absent => Precondition::Unconditional,
        other => precondition(other)?,
    };
    let _writing = follow_current(&state, R::KIND, &id, precondition).await;
    let written = Catalog::from_ref(&state)
        .apply(&principal, &id, definition, precondition, note.as_deref())
        .await
        .map_err(|e| absent::<R>(e, &id, precondition))?;
    Ok(written_response(&written))
}

/// `PATCH /{kind}s/{id}`: the expected version comes from `If-Match` or the body's
/// `version`; when both are given they must agree.
pub async fn patch<R: Routed>(
    State(state): State<AppState>,
    State(catalog): State<Catalog>,
    Editor(principal): Editor,
    Id(id): Id,
    if_match: IfMatch,
    ProposalNote(note): ProposalNote,
    MergePatchBody(patch): MergePatchBody,
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
    let precondition = match (if_match, body_version) {
        (IfMatch::Absent, None) => return Err(precondition_required()),
        (IfMatch::Absent, Some(v)) => Precondition::Version(v),
        (other, None) => precondition(other)?,
        (other, Some(v)) => {
            let header = match precondition(other)? {
                Precondition::Version(header) => header,
                _ => current_version::<R>(&catalog, &id).await?,
            };
            if header != v {
                return Err(Problem::new(
                    StatusCode::PRECONDITION_FAILED,
                    Code::VersionMismatch,
                    format!("If-Match ({header}) and body version ({v}) disagree"),
                ));
            }
            Precondition::Version(v)
        }
    };
    let _writing = follow_current(&state, R::KIND, &id, precondition).await;
    let written = catalog
        .patch::<R>(&principal, &id, &patch, precondition, note.as_deref())
        .await
        .map_err(|e| absent::<R>(e, &id, precondition))?;
    Ok(written_response(&written))
}

/// `DELETE /{kind}s/{id}`: 204.
pub async fn delete<R: Routed>(
    State(state): State<AppState>,
    State(catalog): State<Catalog>,
    Admin(principal): Admin,
    Id(id): Id,
    if_match: IfMatch,
) -> Result<Response, Problem> {
    if if_match == IfMatch::Absent {
        return Err(precondition_required());
    }
    let precondition = precondition(if_match)?;
    let _writing = follow_current(&state, R::KIND, &id, precondition).await;
    catalog
        .delete::<R>(&principal, &id, precondition)
        .await
        .map_err(|e| absent::<R>(e, &id, precondition))?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `GET /{kind}s`.
pub async fn list<R: Routed>(
    State(catalog): State<Catalog>,
    _caller: Reader,
    params: ListParams,
) -> Result<Response, Problem> {
    let query = params.to_query(R::KIND, true)?;
    Ok(json_bytes(catalog.list_json::<R>(&query).await?))
}

/// `GET /{kind}s/{id}/versions`.
pub async fn versions<R: Routed>(
    State(catalog): State<Catalog>,
    _caller: Reader,
    Id(id): Id,
    params: ListParams,
) -> Result<Response, Problem> {
    let query = params.to_query(R::KIND, false)?;
    let page = catalog.versions::<R>(&id, &query).await?;
    Ok(Json(PageBody { items: page.items, next_cursor: page.next_cursor }).into_response())
}

/// `GET /{kind}s/{id}/versions/{v}`.
pub async fn version<R: Routed>(
    State(catalog): State<Catalog>,
    _caller: Reader,
    IdVersion(id, v): IdVersion,
) -> Result<Response, Problem> {
    let definition: R = catalog.version(&id, v).await?;
    Ok(single(StatusCode::OK, &definition))
}

/// What an `If-Match` other than none asks for: `*` the current version; a tag this
/// server never issued fails.
fn precondition(if_match: IfMatch) -> Result<Precondition, Problem> {
    match if_match {
        IfMatch::Version(v) => Ok(Precondition::Version(v)),
        IfMatch::Any | IfMatch::Absent => Ok(Precondition::Current),
        IfMatch::Never => Err(Problem::new(
            StatusCode::PRECONDITION_FAILED,
            Code::VersionMismatch,
            "If-Match names no version of this definition (expected a tag such as \"3\")",
        )),
    }
}

/// The current version of `id` for `If-Match: *` (which needs the definition to exist).
async fn current_version<R: Resource>(catalog: &Catalog, id: &str) -> Result<u64, Problem> {
    let current: Result<R, _> = catalog.get(id).await;
    current.map(|c| c.version()).map_err(|e| absent::<R>(e, id, Precondition::Current))
}

/// A write to whatever is current (`If-Match: *`) of a definition that does not exist
/// is a failed precondition, not a 404.
fn absent<R: Resource>(error: ServiceError, id: &str, precondition: Precondition) -> Problem {
    match error {
        ServiceError::NotFound { .. } if precondition == Precondition::Current => Problem::new(
            StatusCode::PRECONDITION_FAILED,
            Code::VersionMismatch,
            format!("If-Match: * but {} `{id}` does not exist", R::KIND.as_str()),
        ),
        other => other.into(),
    }
}

/// For a write that applies to whatever is current (`If-Match: *`, or none on PUT),
/// the definition's write lock; writes naming a version need none (the store checks).
async fn follow_current(
    state: &AppState,
    kind: registry_core::Kind,
    id: &str,
    precondition: Precondition,
) -> Option<tokio::sync::OwnedMutexGuard<()>> {
    match precondition {
        Precondition::Current | Precondition::Unconditional => {
            Some(state.writes.lock(kind, id).await)
        }
        Precondition::Version(_) => None,
    }
}

fn precondition_required() -> Problem {
    Problem::new(
        StatusCode::PRECONDITION_REQUIRED,
        Code::PreconditionRequired,
        "send `If-Match: \"<version>\"` (or `version` in the body) with the version you read",
    )
}
