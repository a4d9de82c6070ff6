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

pub use registry_token::{PRINCIPAL_HEADER, SESSION_HEADER};

/// A 400 at `/headers/X-Registry-Principal` saying `message`.
pub fn invalid_principal(message: impl Into<String>) -> Problem {
    let path = format!("/headers/{PRINCIPAL_HEADER}");
    Problem::validation(vec![Violation { path, message: message.into() }])
}

/// The principal of the request's [`PRINCIPAL_HEADER`], verified with the registry's
/// keys; `None` without the header. Sent twice, unreadable, forged, expired: a 400 at
/// `/headers/X-Registry-Principal`, and a refused token's decision line at `point`.
pub fn signed_principal(
    resolver: &Resolver,
    headers: &http::HeaderMap,
    point: DecisionPoint,
) -> Result<Option<VerifiedPrincipal>, Problem> {
    at_most_one(headers, PRINCIPAL_HEADER)?;
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
    at_most_one(headers, SESSION_HEADER)?;
    let Some(session) = headers.get(SESSION_HEADER) else { return Ok(()) };
    if Some(session.as_bytes()) == principal.session_id.as_deref().map(str::as_bytes) {
        return Ok(());
    }
    Err(Problem::validation(vec![Violation {
        path: format!("/headers/{SESSION_HEADER}"),
        message: "the principal token is bound to another session (its sid)".into(),
    }]))
}
