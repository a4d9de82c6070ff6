//! Extractors that authenticate the caller and require a minimum role, before the
//! body is read (so a reader gets 403, not a validation error).

use axum::extract::FromRequestParts;
use http::{StatusCode, request::Parts};

use crate::auth::{Principal, Role};
use crate::http::AppState;
use crate::http::problem::{Code, Problem};

/// Any authenticated caller (role `reader` or above).
#[derive(Debug, Clone)]
pub struct Reader(pub Principal);

/// A caller with the `runtime` role: the one role that obtains tools' access tokens
/// (decision 70); the roles ranked above it do not.
#[derive(Debug, Clone)]
pub struct RuntimeCaller(pub Principal);

/// A caller with at least the `editor` role.
#[derive(Debug, Clone)]
pub struct Editor(pub Principal);

/// A caller with the `admin` role.
#[derive(Debug, Clone)]
pub struct Admin(pub Principal);

/// Authenticates the request, records the principal in the request span and checks
/// the role.
fn authorize(parts: &Parts, state: &AppState, role: Role) -> Result<Principal, Problem> {
    single_authorization(parts)?;
    let principal = state.authenticator.authenticate(parts)?;
    tracing::Span::current().record("principal", tracing::field::display(&principal.name));
    if principal.has(role) {
        Ok(principal)
    } else {
        Err(Problem::new(
            StatusCode::FORBIDDEN,
            Code::Forbidden,
            format!(
                "the `{}` role is needed; `{}` has `{}`",
                role.as_str(),
                principal.name,
                principal.role.as_str()
            ),
        ))
    }
}

/// More than one `Authorization` header is ambiguous: which one names the caller would
/// depend on the order, so the request is a 400 whatever the order, before any is read.
fn single_authorization(parts: &Parts) -> Result<(), Problem> {
    at_most_one(&parts.headers, "Authorization")
}

/// A 400 at `/headers/<name>` when header `name` is sent more than once: which one
/// counts would depend on the order.
pub(crate) fn at_most_one(headers: &http::HeaderMap, name: &str) -> Result<(), Problem> {
    if headers.get_all(name).iter().nth(1).is_some() {
        return Err(Problem::bad_request(
            format!("/headers/{name}"),
            format!("send exactly one `{name}` header"),
        ));
    }
    Ok(())
}

impl FromRequestParts<AppState> for Reader {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Problem> {
        authorize(parts, state, Role::Reader).map(Self)
    }
}

impl FromRequestParts<AppState> for RuntimeCaller {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Problem> {
        let principal = authorize(parts, state, Role::Reader)?;
        crate::service::require_token_role(&principal)?;
        Ok(Self(principal))
    }
}

impl FromRequestParts<AppState> for Editor {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Problem> {
        authorize(parts, state, Role::Editor).map(Self)
    }
}

impl FromRequestParts<AppState> for Admin {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Problem> {
        authorize(parts, state, Role::Admin).map(Self)
    }
}
