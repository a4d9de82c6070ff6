//! The principal token a runtime or a tool's guard sends in `X-Registry-Principal`:
//! the `registryPrincipal` session attribute of a resolution (or a test-invoke), as
//! received. Read and verified here for every route that takes it (the token broker,
//! `authorize`).

use registry_access::DecisionPoint;
use registry_core::Violation;

use crate::http::auth::at_most_one;
use crate::http::json::parse_json;
use crate::http::problem::Problem;
use crate::service::{Resolver, VerifiedPrincipal};

/// The header carrying a principal token.
pub const PRINCIPAL_HEADER: &str = "x-registry-principal";

/// The problem's pointer for a principal token that is not accepted.
pub const PRINCIPAL_POINTER: &str = "/headers/X-Registry-Principal";

/// The header naming the Bedrock session a call arrived in (a guard's event
/// `sessionId`): with a principal token, it must be the token's session.
pub const SESSION_HEADER: &str = "x-registry-session";

/// A 400 at [`PRINCIPAL_POINTER`] saying `message`.
pub fn invalid_principal(message: impl Into<String>) -> Problem {
    Problem::validation(vec![Violation { path: PRINCIPAL_POINTER.into(), message: message.into() }])
}

/// The principal of the request's [`PRINCIPAL_HEADER`], verified with the registry's
/// keys; `None` without the header. Sent twice, unreadable, forged, expired: a 400 at
/// [`PRINCIPAL_POINTER`], and a refused token's decision line at `point`.
pub fn signed_principal(
    resolver: &Resolver,
    headers: &http::HeaderMap,
    point: DecisionPoint,
) -> Result<Option<VerifiedPrincipal>, Problem> {
    at_most_one(headers, "X-Registry-Principal")?;
    let Some(token) = headers.get(PRINCIPAL_HEADER) else { return Ok(None) };
    let token = token.to_str().map_err(|_| invalid_principal("not a principal token"))?;
    let principal = resolver.verify_principal(token).map_err(|e| {
        resolver.log_refused_principal(point, &e);
        invalid_principal(e.to_string())
    })?;
    let context = parse_json(principal.context_json().as_bytes())
        .map_err(|_| invalid_principal("the token's context is not a request context"))?;
    Ok(Some(VerifiedPrincipal {
        session_id: Some(principal.session_id().to_owned()),
        agent_id: principal.act.sub,
        context,
    }))
}

/// Checks the request's [`SESSION_HEADER`], when sent, against `principal`'s session: a
/// token replayed into another Bedrock session is a 400 at
/// `/headers/X-Registry-Session`, as a guard in table mode refuses it.
pub fn same_session(
    principal: &VerifiedPrincipal,
    headers: &http::HeaderMap,
) -> Result<(), Problem> {
    at_most_one(headers, "X-Registry-Session")?;
    let Some(session) = headers.get(SESSION_HEADER) else { return Ok(()) };
    if Some(session.as_bytes()) == principal.session_id.as_deref().map(str::as_bytes) {
        return Ok(());
    }
    Err(Problem::validation(vec![Violation {
        path: "/headers/X-Registry-Session".into(),
        message: "the principal token is bound to another session (its sid)".into(),
    }]))
}
