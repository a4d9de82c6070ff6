//! Agent routes: thin handlers over [`crate::http::resource`].

use axum::extract::State;
use axum::response::Response;
use registry_core::AgentDefinition;
use serde_json::Value;

use crate::http::AppState;
use crate::http::auth::{Admin, Editor, Reader};
use crate::http::etag::IfMatch;
use crate::http::json::JsonBody;
use crate::http::params::{Id, IdVersion, ListParams, ListParamsDoc, PageParamsDoc};
use crate::http::problem::Problem;
use crate::http::resource::{self, PageBody};

/// List agents.
#[utoipa::path(get, path = "/agents", tag = "agents", params(ListParamsDoc),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "One page of agents", body = PageBody<AgentDefinition>),
        (status = 400, description = "Bad query parameter", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn list_agents(
    State(state): State<AppState>,
    _caller: Reader,
    params: ListParams,
) -> Result<Response, Problem> {
    resource::list::<AgentDefinition>(&state, &params).await
}

/// Create an agent (its id is generated when omitted).
#[utoipa::path(post, path = "/agents", tag = "agents", request_body = AgentDefinition,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Created", body = AgentDefinition,
            headers(("ETag" = String, description = "\"<version>\""), ("Location" = String))),
        (status = 400, description = "Invalid definition or malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Role too low", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The id exists", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body over 1 MiB", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn create_agent(
    State(state): State<AppState>,
    Editor(principal): Editor,
    JsonBody(definition): JsonBody<AgentDefinition>,
) -> Result<Response, Problem> {
    resource::create(&state, &principal, definition).await
}

/// Get an agent.
#[utoipa::path(get, path = "/agents/{id}", tag = "agents", params(("id" = String, Path, description = "Agent id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The agent", body = AgentDefinition, headers(("ETag" = String))),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such agent", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get_agent(
    State(state): State<AppState>,
    _caller: Reader,
    Id(id): Id,
) -> Result<Response, Problem> {
    resource::get::<AgentDefinition>(&state, &id).await
}

/// Create or replace an agent (idempotent; `If-Match` optional).
#[utoipa::path(put, path = "/agents/{id}", tag = "agents", request_body = AgentDefinition,
    params(("id" = String, Path, description = "Agent id"),
        ("If-Match" = Option<String>, Header, description = "Expected version, `\"<version>\"`")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Replaced, or unchanged (same version)", body = AgentDefinition, headers(("ETag" = String))),
        (status = 201, description = "Created", body = AgentDefinition, headers(("ETag" = String), ("Location" = String))),
        (status = 400, description = "Invalid definition or malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Role too low (retiring needs admin)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Retired definitions cannot change", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match does not match", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body over 1 MiB", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn put_agent(
    State(state): State<AppState>,
    Editor(principal): Editor,
    Id(id): Id,
    if_match: IfMatch,
    JsonBody(definition): JsonBody<AgentDefinition>,
) -> Result<Response, Problem> {
    resource::put(&state, &principal, &id, if_match, definition).await
}

/// Change an agent with a JSON Merge Patch (RFC 7396).
#[utoipa::path(patch, path = "/agents/{id}", tag = "agents",
    request_body(content = Object, content_type = "application/merge-patch+json", description = "JSON Merge Patch"),
    params(("id" = String, Path, description = "Agent id"),
        ("If-Match" = Option<String>, Header, description = "Expected version (or `version` in the body); required")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Changed", body = AgentDefinition, headers(("ETag" = String))),
        (status = 400, description = "Invalid result or malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Role too low", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such agent", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Retired definitions cannot change", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "Version mismatch", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body over 1 MiB", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 428, description = "If-Match missing", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn patch_agent(
    State(state): State<AppState>,
    Editor(principal): Editor,
    Id(id): Id,
    if_match: IfMatch,
    JsonBody(patch): JsonBody<Value>,
) -> Result<Response, Problem> {
    resource::patch::<AgentDefinition>(&state, &principal, &id, if_match, patch).await
}

/// Delete an agent (admin; `If-Match` required).
#[utoipa::path(delete, path = "/agents/{id}", tag = "agents",
    params(("id" = String, Path, description = "Agent id"),
        ("If-Match" = String, Header, description = "Expected version, `\"<version>\"`")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such agent", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "Version mismatch", body = Problem, content_type = "application/problem+json"),
        (status = 428, description = "If-Match missing", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn delete_agent(
    State(state): State<AppState>,
    Admin(principal): Admin,
    Id(id): Id,
    if_match: IfMatch,
) -> Result<Response, Problem> {
    resource::delete::<AgentDefinition>(&state, &principal, &id, if_match).await
}

/// An agent's version history, oldest first.
#[utoipa::path(get, path = "/agents/{id}/versions", tag = "agents",
    params(("id" = String, Path, description = "Agent id"), PageParamsDoc),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "One page of versions", body = PageBody<AgentDefinition>),
        (status = 400, description = "Bad query parameter", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such agent", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn agent_versions(
    State(state): State<AppState>,
    _caller: Reader,
    Id(id): Id,
    params: ListParams,
) -> Result<Response, Problem> {
    resource::versions::<AgentDefinition>(&state, &id, &params).await
}

/// One immutable version of an agent.
#[utoipa::path(get, path = "/agents/{id}/versions/{v}", tag = "agents",
    params(("id" = String, Path, description = "Agent id"), ("v" = u64, Path, description = "Version")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The snapshot", body = AgentDefinition, headers(("ETag" = String))),
        (status = 400, description = "Bad version number", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such version", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn agent_version(
    State(state): State<AppState>,
    _caller: Reader,
    IdVersion(id, v): IdVersion,
) -> Result<Response, Problem> {
    resource::version::<AgentDefinition>(&state, &id, v).await
}
