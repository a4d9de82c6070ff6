//! Proposals over HTTP: `GET /proposals`, `GET /proposals/{id}`, and
//! `POST /proposals/{id}/approve|reject|cancel`; the `Proposal-Note` header of a write
//! and the 202 a write that became a proposal answers.

use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header, request::Parts};
use registry_core::{Kind, Violation, pointer};
use registry_store::{ProposalQuery, ProposalState};
use serde::{Deserialize, Serialize};

use crate::http::auth::Reader;
use crate::http::json::JsonBody;
use crate::http::params::{Id, ListParams};
use crate::http::problem::Problem;
use crate::http::responses::{BodyErrors, CallErrors, Conflict, Forbidden, NotFound};
use crate::service::{Catalog, MAX_NOTE_CHARS, ProposalView};

/// The request header carrying the note of a write that may become a proposal.
pub const NOTE_HEADER: &str = "proposal-note";

/// The `Proposal-Note` header of a write (UTF-8, at most 2,000 characters).
#[derive(Debug, Clone, Default)]
pub struct ProposalNote(pub Option<String>);

impl<S: Send + Sync> FromRequestParts<S> for ProposalNote {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Problem> {
        let Some(value) = parts.headers.get(NOTE_HEADER) else { return Ok(Self(None)) };
        let text = value.to_str().map_err(|_| {
            Problem::bad_request("/headers/Proposal-Note", "must be visible ASCII text")
        })?;
        if text.chars().count() > MAX_NOTE_CHARS {
            return Err(Problem::bad_request(
                "/headers/Proposal-Note",
                format!("must be at most {MAX_NOTE_CHARS} characters"),
            ));
        }
        Ok(Self(Some(text.to_owned())))
    }
}

/// A 202: the write became `proposal`, at `Location: /proposals/{id}`.
pub fn proposed_response(proposal: &ProposalView) -> Response {
    let mut response = (StatusCode::ACCEPTED, Json(proposal)).into_response();
    if let Ok(location) = HeaderValue::from_str(&format!("/proposals/{}", proposal.id)) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

/// One page of proposals.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProposalPageBody {
    /// The proposals, oldest first.
    pub items: Vec<ProposalView>,
    /// Cursor for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The body of a rejection.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RejectBody {
    /// Why (required, at most 2,000 characters).
    pub reason: String,
}

fn violation(key: &str, message: &str) -> Violation {
    Violation { path: pointer("", key), message: message.to_owned() }
}

/// The query of `GET /proposals`.
fn proposal_query(ListParams(pairs): ListParams) -> Result<ProposalQuery, Problem> {
    let mut query = ProposalQuery::default();
    let (mut errors, mut seen) = (Vec::new(), Vec::new());
    for (key, value) in &pairs {
        if seen.contains(key) {
            errors.push(violation(key, "given more than once"));
            continue;
        }
        seen.push(key.clone());
        match key.as_str() {
            "state" => match ProposalState::parse(value) {
                Some(s) => query.state = Some(s),
                None => errors.push(violation(
                    key,
                    "must be one of open, approved, applied, rejected, cancelled, stale",
                )),
            },
            "kind" => match value.as_str() {
                "agent" => query.kind = Some(Kind::Agent),
                "tool" => query.kind = Some(Kind::Tool),
                _ => errors.push(violation(key, "must be `agent` or `tool`")),
            },
            "id" => query.id = Some(value.clone()),
            "limit" => match value.parse::<u32>() {
                Ok(n) if (1..=100).contains(&n) => query.limit = n,
                _ => errors.push(violation(key, "must be an integer from 1 to 100")),
            },
            "cursor" => match uuid::Uuid::parse_str(value) {
                Ok(_) => query.after = Some(value.clone()),
                Err(_) => errors
                    .push(violation(key, "invalid cursor: pass a nextCursor from a previous page")),
            },
            _ => errors.push(violation(key, "unknown query parameter")),
        }
    }
    if errors.is_empty() { Ok(query) } else { Err(Problem::validation(errors)) }
}

/// List proposals, oldest first.
#[utoipa::path(get, path = "/proposals", tag = "proposals",
    params(("state" = Option<String>, Query, pattern = "^(open|approved|applied|rejected|cancelled|stale)$", description = "open, approved, applied, rejected, cancelled or stale"),
        ("kind" = Option<String>, Query, pattern = "^(agent|tool)$", description = "`agent` or `tool`"),
        ("id" = Option<String>, Query, description = "Definition id"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Page size, 1..100 (default 25)"),
        ("cursor" = Option<String>, Query, description = "The `nextCursor` of the previous page")),
    security(("bearer" = [])),
    responses((status = 200, description = "One page of proposals", body = ProposalPageBody), CallErrors))]
pub async fn list_proposals(
    State(catalog): State<Catalog>,
    _caller: Reader,
    params: ListParams,
) -> Result<Json<ProposalPageBody>, Problem> {
    let page = catalog.proposals(&proposal_query(params)?).await?;
    Ok(Json(ProposalPageBody { items: page.items, next_cursor: page.next_cursor }))
}

/// Get a proposal with its RFC 6902 diff from the base version (and, for tools, the
/// interface changes and the release check).
#[utoipa::path(get, path = "/proposals/{id}", tag = "proposals",
    params(("id" = String, Path, description = "Proposal id")),
    security(("bearer" = [])),
    responses((status = 200, description = "The proposal", body = ProposalView), CallErrors, NotFound))]
pub async fn get_proposal(
    State(catalog): State<Catalog>,
    _caller: Reader,
    Id(id): Id,
) -> Result<Json<ProposalView>, Problem> {
    Ok(Json(catalog.proposal(&id).await?))
}

/// Approve a proposal (approver or admin, never its author). With enough approvals it
/// applies if the definition is still at its base version; otherwise it turns `stale`
/// (409) and nothing is applied.
#[utoipa::path(post, path = "/proposals/{id}/approve", tag = "proposals",
    params(("id" = String, Path, description = "Proposal id")),
    security(("bearer" = [])),
    responses((status = 200, description = "Approved (and applied when it had enough approvals)", body = ProposalView),
        CallErrors, Forbidden, NotFound, Conflict))]
pub async fn approve_proposal(
    State(catalog): State<Catalog>,
    Reader(principal): Reader,
    Id(id): Id,
) -> Result<Json<ProposalView>, Problem> {
    Ok(Json(catalog.approve(&principal, &id).await?))
}

/// Reject a proposal with a reason (approver or admin).
#[utoipa::path(post, path = "/proposals/{id}/reject", tag = "proposals", request_body = RejectBody,
    params(("id" = String, Path, description = "Proposal id")),
    security(("bearer" = [])),
    responses((status = 200, description = "Rejected", body = ProposalView),
        CallErrors, BodyErrors, Forbidden, NotFound, Conflict))]
pub async fn reject_proposal(
    State(catalog): State<Catalog>,
    Reader(principal): Reader,
    Id(id): Id,
    JsonBody(body): JsonBody<RejectBody>,
) -> Result<Json<ProposalView>, Problem> {
    Ok(Json(catalog.reject(&principal, &id, Some(&body.reason)).await?))
}

/// Cancel a proposal (its author).
#[utoipa::path(post, path = "/proposals/{id}/cancel", tag = "proposals",
    params(("id" = String, Path, description = "Proposal id")),
    security(("bearer" = [])),
    responses((status = 200, description = "Cancelled", body = ProposalView),
        CallErrors, Forbidden, NotFound, Conflict))]
pub async fn cancel_proposal(
    State(catalog): State<Catalog>,
    Reader(principal): Reader,
    Id(id): Id,
) -> Result<Json<ProposalView>, Problem> {
    Ok(Json(catalog.cancel(&principal, &id).await?))
}
