//! Tool routes: thin handlers over [`crate::http::resource`].

use axum::extract::State;
use axum::response::Response;
use registry_core::ToolDefinition;
use serde_json::Value;

use crate::http::AppState;
use crate::http::auth::{Admin, Editor, Reader};
use crate::http::etag::IfMatch;
use crate::http::json::JsonBody;
use crate::http::params::{Id, IdVersion, ListParams, ListParamsDoc, PageParamsDoc, VerifyOnWrite};
use crate::http::problem::Problem;
use crate::http::resource::{self, PageBody};

/// List tools.
#[utoipa::path(get, path = "/tools", tag = "tools", params(ListParamsDoc),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "One page of tools", body = PageBody<ToolDefinition>),
        (status = 400, description = "Bad query parameter", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn list_tools(
    State(state): State<AppState>,
    _caller: Reader,
    params: ListParams,
) -> Result<Response, Problem> {
    resource::list::<ToolDefinition>(&state, &params).await
}

/// Create a tool (its id is generated when omitted).
#[utoipa::path(post, path = "/tools", tag = "tools", request_body = ToolDefinition,
    params(("verify" = Option<bool>, Query, description = "Check the tool's Lambda with AWS first (as `POST /tools/{id}/verify`); a failing check is a 400 and nothing is written")),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Created", body = ToolDefinition,
            headers(("ETag" = String, description = "\"<version>\""), ("Location" = String))),
        (status = 400, description = "Invalid definition or malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Role too low", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The id exists", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body over 1 MiB", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn create_tool(
    State(state): State<AppState>,
    Editor(principal): Editor,
    VerifyOnWrite(verify): VerifyOnWrite,
    JsonBody(definition): JsonBody<ToolDefinition>,
) -> Result<Response, Problem> {
    verify_first(&state, verify, &definition).await?;
    resource::create(&state, &principal, definition).await
}

/// Get a tool.
#[utoipa::path(get, path = "/tools/{id}", tag = "tools", params(("id" = String, Path, description = "Tool id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The agent", body = ToolDefinition, headers(("ETag" = String))),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tool", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn get_tool(
    State(state): State<AppState>,
    _caller: Reader,
    Id(id): Id,
) -> Result<Response, Problem> {
    resource::get::<ToolDefinition>(&state, &id).await
}

/// Create or replace a tool (idempotent; `If-Match` optional).
#[utoipa::path(put, path = "/tools/{id}", tag = "tools", request_body = ToolDefinition,
    params(("id" = String, Path, description = "Tool id"),
        ("If-Match" = Option<String>, Header, description = "Expected version, `\"<version>\"`"),
        ("verify" = Option<bool>, Query, description = "Check the tool's Lambda with AWS first; a failing check is a 400 and nothing is written")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Replaced, or unchanged (same version)", body = ToolDefinition, headers(("ETag" = String))),
        (status = 201, description = "Created", body = ToolDefinition, headers(("ETag" = String), ("Location" = String))),
        (status = 400, description = "Invalid definition or malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Role too low (retiring needs admin)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Retired definitions cannot change", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match does not match", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body over 1 MiB", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn put_tool(
    State(state): State<AppState>,
    Editor(principal): Editor,
    Id(id): Id,
    if_match: IfMatch,
    VerifyOnWrite(verify): VerifyOnWrite,
    JsonBody(definition): JsonBody<ToolDefinition>,
) -> Result<Response, Problem> {
    verify_first(&state, verify, &definition).await?;
    resource::put(&state, &principal, &id, if_match, definition).await
}

/// Change a tool with a JSON Merge Patch (RFC 7396).
#[utoipa::path(patch, path = "/tools/{id}", tag = "tools",
    request_body(content = Object, content_type = "application/merge-patch+json", description = "JSON Merge Patch"),
    params(("id" = String, Path, description = "Tool id"),
        ("If-Match" = Option<String>, Header, description = "Expected version (or `version` in the body); required")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Changed", body = ToolDefinition, headers(("ETag" = String))),
        (status = 400, description = "Invalid result or malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Role too low", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tool", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Retired definitions cannot change", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "Version mismatch", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body over 1 MiB", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 428, description = "If-Match missing", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn patch_tool(
    State(state): State<AppState>,
    Editor(principal): Editor,
    Id(id): Id,
    if_match: IfMatch,
    JsonBody(patch): JsonBody<Value>,
) -> Result<Response, Problem> {
    resource::patch::<ToolDefinition>(&state, &principal, &id, if_match, patch).await
}

/// Delete a tool (admin; `If-Match` required).
#[utoipa::path(delete, path = "/tools/{id}", tag = "tools",
    params(("id" = String, Path, description = "Tool id"),
        ("If-Match" = String, Header, description = "Expected version, `\"<version>\"`")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tool", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Used by agents (IN_USE, naming them)", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "Version mismatch", body = Problem, content_type = "application/problem+json"),
        (status = 428, description = "If-Match missing", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn delete_tool(
    State(state): State<AppState>,
    Admin(principal): Admin,
    Id(id): Id,
    if_match: IfMatch,
) -> Result<Response, Problem> {
    resource::delete::<ToolDefinition>(&state, &principal, &id, if_match).await
}

/// A tool's version history, oldest first.
#[utoipa::path(get, path = "/tools/{id}/versions", tag = "tools",
    params(("id" = String, Path, description = "Tool id"), PageParamsDoc),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "One page of versions", body = PageBody<ToolDefinition>),
        (status = 400, description = "Bad query parameter", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tool", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn tool_versions(
    State(state): State<AppState>,
    _caller: Reader,
    Id(id): Id,
    params: ListParams,
) -> Result<Response, Problem> {
    resource::versions::<ToolDefinition>(&state, &id, &params).await
}

/// One immutable version of a tool.
#[utoipa::path(get, path = "/tools/{id}/versions/{v}", tag = "tools",
    params(("id" = String, Path, description = "Tool id"), ("v" = u64, Path, description = "Version")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The snapshot", body = ToolDefinition, headers(("ETag" = String))),
        (status = 400, description = "Bad version number", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such version", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "Server failure", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn tool_version(
    State(state): State<AppState>,
    _caller: Reader,
    IdVersion(id, v): IdVersion,
) -> Result<Response, Problem> {
    resource::version::<ToolDefinition>(&state, &id, v).await
}

/// With `?verify=true`, refuses a tool whose Lambda fails verification before anything
/// is written.
async fn verify_first(
    state: &AppState,
    verify: bool,
    definition: &ToolDefinition,
) -> Result<(), Problem> {
    if !verify {
        return Ok(());
    }
    #[cfg(feature = "aws")]
    {
        Ok(state.registry.verify_before_write(definition).await?)
    }
    #[cfg(not(feature = "aws"))]
    {
        let _ = (state, definition);
        Err(Problem::bad_request(
            "",
            "this server is built without AWS support: `verify=true` is not available",
        ))
    }
}
