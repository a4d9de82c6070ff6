//! Unauthenticated routes and the problem fallbacks: health, OpenAPI, 404, 405, panics.

use std::any::Any;
use std::sync::OnceLock;

use axum::Json;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, Uri, header};
use serde::Serialize;

use crate::http::problem::{Code, Problem};

/// Health status.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Health {
    /// Always `ok` when the server answers.
    pub status: String,
}

/// Liveness check (no authentication).
#[utoipa::path(get, path = "/healthz", tag = "system",
    responses((status = 200, description = "The server is up", body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok".to_owned() })
}

/// This OpenAPI document (no authentication).
#[utoipa::path(get, path = "/openapi.json", tag = "system",
    responses((status = 200, description = "OpenAPI 3.1 document", body = Object)))]
pub async fn openapi_json() -> Response {
    static DOC: OnceLock<String> = OnceLock::new();
    let doc = DOC.get_or_init(|| crate::openapi::document().to_json().unwrap_or_default());
    let mut response = doc.clone().into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// Unknown route: a 404 problem.
pub async fn not_found(uri: Uri) -> Problem {
    Problem::not_found(format!("no route for `{}`", uri.path()))
}

/// Known route, wrong method: a 405 problem.
pub async fn method_not_allowed() -> Problem {
    Problem::new(
        StatusCode::METHOD_NOT_ALLOWED,
        Code::MethodNotAllowed,
        "method not allowed on this route",
    )
}

/// Last line of defence: a panic becomes a 500 problem (and a log line).
pub fn panic_problem(_panic: Box<dyn Any + Send + 'static>) -> Response {
    tracing::error!("handler panicked");
    Problem::internal().into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_problem_500() {
        let response = panic_problem(Box::new("boom"));
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/problem+json");
    }
}
