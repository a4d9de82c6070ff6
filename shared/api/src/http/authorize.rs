//! `POST /tools/{id}/authorize`: decide one call of a tool for a principal, for
//! runtimes that execute calls themselves (return of control, MCP, inline tools).

use axum::Json;
use axum::extract::State;

use crate::http::auth::Reader;
use crate::http::json::JsonBody;
use crate::http::params::{Explain, ExplainParamsDoc, Id};
use registry_access::DecisionPoint;

use crate::http::principal::{PRINCIPAL_HEADER, same_session, signed_principal};
use crate::http::problem::Problem;
use crate::http::responses::{BodyErrors, CallErrors, NotFound};
use crate::service::{Authorization, AuthorizeRequest, CallPolicy, Resolver};

/// Decide one call of a tool: the tool's lifecycle, its access rules for the principal
/// in `context`, then its call rules over `call` (arguments typed by the tool's
/// schema). Answers the effect, the stage and rule that decided, log-only outcomes
/// (`would-deny`), and every rule's result with `?explain=true`. Every decision is a
/// line in the decision log. A function the tool lacks or arguments its schema
/// refuses are a 400 with pointers under `/call`. With a principal token (the
/// `registryPrincipal` session attribute) in `X-Registry-Principal`, as a tool's guard
/// sends it, the agent, context and session are the token's: the body carries only
/// `call` (any of `context`, `agentId`, `sessionId` besides is a 400), a token the
/// registry does not accept is a 400 at `/headers/X-Registry-Principal`, and one sent
/// from another session than its own (`X-Registry-Session`) a 400 there.
#[utoipa::path(post, path = "/tools/{id}/authorize", tag = "access", request_body = AuthorizeRequest,
    params(("id" = String, Path, description = "Tool id"), ExplainParamsDoc,
        ("X-Registry-Principal" = Option<String>, Header, description = "A principal token (the `registryPrincipal` session attribute): the call is decided for its agent, context and session"),
        ("X-Registry-Session" = Option<String>, Header, description = "With X-Registry-Principal: the Bedrock session the call arrived in, which must be the token's (else a 400 at /headers/X-Registry-Session)")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The decision (allow or deny both answer 200)", body = Authorization),
        CallErrors, BodyErrors, NotFound,
    ))]
pub async fn authorize_call(
    State(calls): State<CallPolicy>,
    State(resolver): State<Resolver>,
    _caller: Reader,
    Id(id): Id,
    Explain(explain): Explain,
    headers: http::HeaderMap,
    JsonBody(request): JsonBody<AuthorizeRequest>,
) -> Result<Json<Authorization>, Problem> {
    if let Some(token) = headers.get(PRINCIPAL_HEADER).and_then(|t| t.to_str().ok()) {
        // another instance may have rotated the keys
        resolver.refresh_keys_for(token).await;
    }
    let request = match signed_principal(&resolver, &headers, DecisionPoint::Authorize)? {
        Some(principal) => {
            same_session(&principal, &headers)?;
            request.as_principal(principal)?
        }
        None => request,
    };
    Ok(Json(calls.authorize(&id, &request, explain).await?))
}
