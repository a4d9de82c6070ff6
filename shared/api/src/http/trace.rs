//! Request logging through `tracing`: request id, principal, method, route, status and
//! latency. Never bodies, never headers other than the request id.

use std::time::Duration;

use axum::extract::MatchedPath;
use axum::http::{Request, Response};
use tower_http::classify::{ServerErrorsAsFailures, SharedClassifier};
use tower_http::trace::{MakeSpan, OnResponse, TraceLayer};
use tracing::Span;

/// Header carrying the request id (honoured when sent, generated otherwise).
pub const REQUEST_ID: &str = "x-request-id";

/// Opens the `request` span; `principal` is filled in once the caller is authenticated.
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestSpan;

impl<B> MakeSpan<B> for RequestSpan {
    fn make_span(&mut self, request: &Request<B>) -> Span {
        let route = request.extensions().get::<MatchedPath>().map_or("<unmatched>", |m| m.as_str());
        let request_id =
            request.headers().get(REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or("-");
        tracing::info_span!(
            "request",
            request_id = %request_id,
            method = %request.method(),
            route = %route,
            principal = tracing::field::Empty,
        )
    }
}

/// Logs one line per response with status and latency.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogResponse;

impl<B> OnResponse<B> for LogResponse {
    fn on_response(self, response: &Response<B>, latency: Duration, _span: &Span) {
        let status = response.status().as_u16();
        let latency_us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        if response.status().is_server_error() {
            tracing::error!(status, latency_us, "request finished");
        } else {
            tracing::info!(status, latency_us, "request finished");
        }
    }
}

/// The trace layer of the router.
pub fn layer()
-> TraceLayer<SharedClassifier<ServerErrorsAsFailures>, RequestSpan, (), LogResponse, (), (), ()> {
    TraceLayer::new_for_http()
        .make_span_with(RequestSpan)
        .on_request(())
        .on_response(LogResponse)
        .on_body_chunk(())
        .on_eos(())
        .on_failure(())
}
