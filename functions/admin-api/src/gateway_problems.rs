//! Rewrites the api crate's authentication failures (always 401, worded for bearer
//! tokens) into API Gateway terms: no identity in the request context stays a 401 with
//! a fitting message; an identity that `ROLE_MAP` grants no role becomes a 403.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use registry_api::http::{Code, Problem};

use crate::gateway_auth::{Caller, GatewayAuth};

/// Header echoed by the api crate's request tracing, kept on rewritten responses.
const REQUEST_ID: &str = "x-request-id";

/// Middleware (for `axum::middleware::from_fn_with_state`) applying the rewrite to
/// 401 responses.
pub async fn gateway_problems(
    State(auth): State<Arc<GatewayAuth>>,
    request: Request,
    next: Next,
) -> Response {
    let caller = auth.caller(request.extensions());
    let response = next.run(request).await;
    if response.status() != StatusCode::UNAUTHORIZED {
        return response;
    }
    let problem = match caller {
        Caller::Anonymous => Problem::new(
            StatusCode::UNAUTHORIZED,
            Code::Unauthenticated,
            "the request carries no caller identity: call the API with AWS SigV4 (IAM \
             authorization) or a JWT accepted by the API's authorizer",
        ),
        Caller::Unmapped(name) => Problem::new(
            StatusCode::FORBIDDEN,
            Code::Forbidden,
            format!("`{name}` is authenticated but ROLE_MAP grants it no role"),
        ),
        Caller::Known(_) => return response,
    };
    let mut rewritten = problem.into_response();
    if let Some(id) = response.headers().get(REQUEST_ID) {
        rewritten.headers_mut().insert(REQUEST_ID, id.clone());
    }
    rewritten
}
