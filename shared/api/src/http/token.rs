//! `POST /tools/{id}/token`: a short-lived access token for a tool's MCP server, for a
//! runtime whose caller the tool is granted to (see `service::token`).

use axum::body::Bytes;
use axum::extract::{FromRequestParts, State};
use axum::response::Response;
use http::request::Parts;
use registry_core::{RequestContext, Violation};

use crate::http::AppState;
use crate::http::auth::RuntimeCaller;
use crate::http::json::{JsonText, json_ok};
use crate::http::params::{Id, ListParams};
use crate::http::problem::Problem;
use crate::http::resolve::failure;
use crate::http::responses::{BodyErrors, CallErrors, NotFound};
use crate::service::{IssuedToken, TokenRequest};

/// The query of a token request: `agentId` (required), `scope` (optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TokenQuery {
    /// The agent the runtime runs.
    pub agent_id: String,
    /// The OAuth scope to ask for.
    pub scope: Option<String>,
}

/// Documentation of [`TokenQuery`].
#[derive(Debug, Clone, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct TokenQueryDoc {
    /// The agent the runtime runs: it is resolved for the context, and the tool must be among the tools it keeps
    #[param(rename = "agentId")]
    agent_id: String,
    /// OAuth scope to ask the token endpoint for (tokens are cached per scope)
    scope: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for TokenQuery {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        let ListParams(pairs) = ListParams::from_request_parts(parts, state).await?;
        let (mut agent_id, mut scope, mut errors) = (None, None, Vec::new());
        for (key, value) in pairs {
            let slot = match key.as_str() {
                "agentId" => &mut agent_id,
                "scope" => &mut scope,
                other => {
                    errors.push(Violation {
                        path: format!("/{other}"),
                        message: "unknown parameter; expected agentId or scope".into(),
                    });
                    continue;
                }
            };
            if slot.replace(value).is_some() {
                errors.push(Violation {
                    path: format!("/{key}"),
                    message: "given more than once".into(),
                });
            }
        }
        if agent_id.as_deref().is_none_or(str::is_empty) {
            errors.push(Violation {
                path: "/agentId".into(),
                message: "required: the agent the runtime runs".into(),
            });
        }
        if !errors.is_empty() {
            return Err(Problem::validation(errors));
        }
        Ok(Self { agent_id: agent_id.unwrap_or_default(), scope })
    }
}

/// Who the token is for: the agent and the caller's request context.
#[derive(Debug, Clone)]
pub struct CallerContext {
    /// The agent the runtime runs.
    pub agent_id: String,
    /// The request context, JSON (resolve's body).
    pub context: Bytes,
}

/// The one place the caller's context of a token request is taken from: today the
/// `agentId` query parameter and the resolve context in the body. When the signed
/// principal context exists (issue 27), this function reads and verifies it instead;
/// nothing else changes.
pub fn caller_context(query: &TokenQuery, body: Bytes) -> Result<CallerContext, Problem> {
    Ok(CallerContext { agent_id: query.agent_id.clone(), context: body })
}

/// Get a short-lived access token for a tool's MCP server (role `runtime`): the OAuth
/// client-credentials grant against the tool's `auth.tokenUrl` with the secret the
/// registry keeps, only when resolving `agentId` for the context keeps the tool (its
/// lifecycle, access rules and rollout, as in resolution). Cached per tool version and
/// scope until shortly before expiry.
#[utoipa::path(post, path = "/tools/{id}/token", tag = "tools", request_body = RequestContext,
    params(("id" = String, Path, description = "Tool id"), TokenQueryDoc),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "An access token for the tool's MCP server", body = IssuedToken),
        (status = 403, description = "Role below `runtime` (`FORBIDDEN`), the tool not granted to the caller (`FORBIDDEN`), or the agent refused (`ACCESS_DENIED`, `NOT_AVAILABLE`)", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The token endpoint failed, refused or redirected (`UPSTREAM_FAILED`); the problem names its status, never its body", body = Problem, content_type = "application/problem+json"),
        CallErrors, BodyErrors, NotFound,
    ))]
pub async fn tool_token(
    State(state): State<AppState>,
    RuntimeCaller(principal): RuntimeCaller,
    Id(id): Id,
    query: TokenQuery,
    JsonText(body): JsonText,
) -> Response {
    let caller = match caller_context(&query, body) {
        Ok(caller) => caller,
        Err(problem) => return axum::response::IntoResponse::into_response(problem),
    };
    let request = TokenRequest {
        principal: &principal,
        tool_id: &id,
        agent_id: &caller.agent_id,
        context: &caller.context,
        scope: query.scope.as_deref(),
    };
    match state.registry.token(request).await {
        Ok(token) => json_ok(&token),
        Err(err) => failure(err),
    }
}
