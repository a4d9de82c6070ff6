//! `POST /tools/{id}/token`: a short-lived access token for a tool's MCP server, for a
//! runtime whose caller the tool is granted to (see `service::token`).

use axum::body::Bytes;
use axum::extract::{FromRequestParts, State};
use axum::response::Response;
use http::request::Parts;
use registry_access::DecisionPoint;
use registry_core::{RequestContext, Violation};

use crate::http::auth::RuntimeCaller;
use crate::http::json::{JsonText, json_ok, parse_json};
use crate::http::params::{Id, ListParams};
use crate::http::principal::{PRINCIPAL_HEADER, invalid_principal, signed_principal};
use crate::http::problem::Problem;
use crate::http::resolve::failure;
use crate::http::responses::{BodyErrors, CallErrors, NotFound};
use crate::service::{IssuedToken, Resolver, TokenRequest, Tokens, require_token_role};

/// The query of a token request: `agentId` (required without a signed context),
/// `scope` (optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TokenQuery {
    /// The agent the runtime runs.
    pub agent_id: Option<String>,
    /// The OAuth scope to ask for.
    pub scope: Option<String>,
}

/// Documentation of [`TokenQuery`].
#[derive(Debug, Clone, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct TokenQueryDoc {
    /// The agent the runtime runs: it is resolved for the context, and the tool must be among the tools it keeps (required without `X-Registry-Principal`; with it, it must be the signed agent)
    #[param(rename = "agentId")]
    agent_id: Option<String>,
    /// OAuth scope to ask the token endpoint for (tokens are cached per scope)
    scope: Option<String>,
}

/// Longest `scope` a caller may ask for.
pub const MAX_SCOPE_BYTES: usize = 1024;

/// RFC 6749 3.3: `scope-token *( SP scope-token )`, each token of `%x21 / %x23-5B /
/// %x5D-7E`; bounded in length, since it is forwarded upstream and keys the cache.
fn is_scope(scope: &str) -> bool {
    scope.len() <= MAX_SCOPE_BYTES
        && scope.split(' ').all(|token| {
            !token.is_empty()
                && token.bytes().all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
        })
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
        if let Some(scope) = &scope
            && !is_scope(scope)
        {
            errors.push(Violation {
                path: "/scope".into(),
                message: format!(
                    "must be RFC 6749 scope tokens (printable ASCII but `\\` and `\"`) \
                     separated by single spaces, at most {MAX_SCOPE_BYTES} bytes"
                ),
            });
        }
        if !errors.is_empty() {
            return Err(Problem::validation(errors));
        }
        Ok(Self { agent_id: agent_id.filter(|a| !a.is_empty()), scope })
    }
}

/// Who the token is for: the agent and the caller's request context.
#[derive(Debug, Clone)]
pub struct CallerContext {
    /// The agent the runtime runs.
    pub agent_id: String,
    /// The request context: the signed one, or resolve's body parsed once.
    pub context: RequestContext,
}

/// The one place the caller's context of a token request is taken from: the signed
/// principal context of a resolution in `X-Registry-Principal` (verified with the
/// registry's keys; its agent and context), else the `agentId` query parameter and the
/// resolve context in the body.
pub fn caller_context(
    resolver: &Resolver,
    parts: &http::HeaderMap,
    query: &TokenQuery,
    body: Bytes,
) -> Result<CallerContext, Problem> {
    let Some(principal) = signed_principal(resolver, parts, DecisionPoint::Token)? else {
        let Some(agent_id) = query.agent_id.clone() else {
            return Err(Problem::validation(vec![Violation {
                path: "/agentId".into(),
                message:
                    "required without an X-Registry-Principal header: the agent the runtime runs"
                        .into(),
            }]));
        };
        // a body that is no context is a validation failure of the request, as resolve's
        let context = parse_json(&body).map_err(|p| Problem::validation(p.errors))?;
        return Ok(CallerContext { agent_id, context });
    };
    if query.agent_id.as_ref().is_some_and(|a| *a != principal.agent_id) {
        return Err(invalid_principal(format!(
            "issued for agent `{}`, not the agentId asked",
            principal.agent_id
        )));
    }
    Ok(CallerContext { agent_id: principal.agent_id, context: principal.context })
}

/// Get a short-lived access token for a tool's MCP server (role `runtime` only): the OAuth
/// client-credentials grant against the tool's `auth.tokenUrl` with the secret the
/// registry keeps, only when resolving `agentId` for the context keeps the tool (its
/// lifecycle, access rules and rollout, as in resolution). The caller is the signed
/// principal context of a resolution in `X-Registry-Principal` (the session attribute
/// `registryPrincipal`), or `agentId` and the context in the body. Cached per tool
/// version and scope until shortly before expiry.
#[utoipa::path(post, path = "/tools/{id}/token", tag = "tools", request_body = RequestContext,
    params(("id" = String, Path, description = "Tool id"), TokenQueryDoc),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "An access token for the tool's MCP server", body = IssuedToken),
        (status = 403, description = "A role other than `runtime` (`FORBIDDEN`), the tool not granted to the caller (`FORBIDDEN`), or the agent refused (`ACCESS_DENIED`, `NOT_AVAILABLE`)", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The token endpoint failed, refused or redirected, or answered a token with 30 s or less to live (`UPSTREAM_FAILED`); the problem names its status, never its body; a failure answers for its tool and scope for 5 s", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Too many requests in flight, or the broker's budget of requests waiting for token endpoints (128) or for this tool's (64, whatever the scope) spent (`OVERLOADED`, with `Retry-After`), or the request timed out (`TIMEOUT`)", body = Problem, content_type = "application/problem+json"),
        CallErrors, BodyErrors, NotFound,
    ))]
pub async fn tool_token(
    State(resolver): State<Resolver>,
    State(tokens): State<Tokens>,
    RuntimeCaller(principal): RuntimeCaller,
    Id(id): Id,
    query: TokenQuery,
    headers: http::HeaderMap,
    JsonText(body): JsonText,
) -> Response {
    // the role first: a caller without it learns nothing of its body's problems
    if let Err(e) = require_token_role(&principal) {
        return axum::response::IntoResponse::into_response(Problem::from(e));
    }
    if let Some(token) = headers.get(PRINCIPAL_HEADER).and_then(|t| t.to_str().ok()) {
        // another instance may have rotated the keys
        resolver.refresh_keys_for(token).await;
    }
    let caller = match caller_context(&resolver, &headers, &query, body) {
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
    match tokens.token(request).await {
        Ok(token) => json_ok(&token),
        Err(err) => failure(err),
    }
}
