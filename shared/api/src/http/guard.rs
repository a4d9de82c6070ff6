//! Per-request guards of the server: request-target and header size, in-flight cap
//! (load shedding) and request timeout, each answering with a problem.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use tokio::sync::Semaphore;

use crate::http::limits::ServerLimits;
use crate::http::problem::{Code, Problem};

/// The liveness route, answered outside the in-flight cap.
const HEALTH_PATH: &str = "/healthz";

/// What the guard middleware needs: the limits and the in-flight permits.
#[derive(Debug, Clone)]
pub struct Guard {
    limits: ServerLimits,
    in_flight: Arc<Semaphore>,
}

impl Guard {
    /// A guard enforcing `limits`.
    pub fn new(limits: ServerLimits) -> Self {
        Self { limits, in_flight: Arc::new(Semaphore::new(limits.max_in_flight)) }
    }
}

/// Applies the guards of `limits` to `router` (outermost, so shed requests cost little).
pub fn apply(router: axum::Router, limits: ServerLimits) -> axum::Router {
    router.layer(middleware::from_fn_with_state(Guard::new(limits), guard))
}

/// The guard middleware.
pub async fn guard(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    let limits = &guard.limits;
    let target = request.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if target > limits.max_uri_bytes {
        return too_large(
            StatusCode::URI_TOO_LONG,
            Code::UriTooLong,
            "",
            format!("the request target is longer than {} bytes", limits.max_uri_bytes),
        );
    }
    let head: usize = request.headers().iter().map(|(n, v)| n.as_str().len() + v.len() + 4).sum();
    if head > limits.max_header_bytes {
        return too_large(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            Code::HeadersTooLarge,
            "/headers",
            format!("the request headers are larger than {} bytes", limits.max_header_bytes),
        );
    }
    // Liveness is answered whatever the load: `/healthz` takes no in-flight permit.
    let _permit = if request.uri().path() == HEALTH_PATH {
        None
    } else {
        let Ok(permit) = guard.in_flight.clone().try_acquire_owned() else {
            tracing::warn!(max_in_flight = limits.max_in_flight, "shedding load");
            return overloaded(limits.max_in_flight);
        };
        Some(permit)
    };
    match tokio::time::timeout(limits.request_timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            tracing::warn!(timeout_ms = limits.request_timeout.as_millis(), "request timed out");
            timed_out(limits.request_timeout)
        }
    }
}

/// A 414 or 431 problem.
fn too_large(status: StatusCode, code: Code, path: &str, detail: String) -> Response {
    let mut problem = Problem::new(status, code, detail.clone());
    problem.errors.push(registry_core::Violation { path: path.to_owned(), message: detail });
    problem.into_response()
}

/// The 503 `OVERLOADED` problem (with `Retry-After`, as every `OVERLOADED` problem).
pub fn overloaded(max_in_flight: usize) -> Response {
    Problem::new(
        StatusCode::SERVICE_UNAVAILABLE,
        Code::Overloaded,
        format!("the server is handling {max_in_flight} requests already; retry shortly"),
    )
    .into_response()
}

/// The 503 `TIMEOUT` problem. A write may or may not have happened: re-read first.
fn timed_out(after: std::time::Duration) -> Response {
    let mut response = Problem::new(
        StatusCode::SERVICE_UNAVAILABLE,
        Code::Timeout,
        format!(
            "the request did not complete within {} ms; a write may or may not have been \
             applied, so read the definition before retrying",
            after.as_millis()
        ),
    )
    .into_response();
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
