//! The console's stylesheet and script, compiled into the binary (nothing is fetched
//! from elsewhere at run time), and the security headers of every console response.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, header};

/// The stylesheet.
pub const CSS: &str = include_str!("../assets/console.css");
/// The script (keyboard shortcuts only; every page works without it).
pub const JS: &str = include_str!("../assets/console.js");

/// The Content-Security-Policy of every console response: only this origin's own
/// script and stylesheet files, no inline script or style, no framing, forms post only
/// here.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                       connect-src 'self'; form-action 'self'; frame-ancestors 'none'; \
                       base-uri 'none'";

/// `GET /console/static/console.css`.
pub async fn css() -> Response {
    asset(CSS, "text/css; charset=utf-8")
}

/// `GET /console/static/console.js`.
pub async fn js() -> Response {
    asset(JS, "text/javascript; charset=utf-8")
}

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=300"));
    response
}

/// Times the console handler and says how long it took in `Server-Timing`
/// (`app;dur=<ms>`), which `scripts/load/console.py` reads for the page-time goal.
pub async fn timed(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let start = std::time::Instant::now();
    let mut response = next.run(request).await;
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    if let Ok(v) = HeaderValue::from_str(&format!("app;dur={ms:.2}")) {
        response.headers_mut().insert("server-timing", v);
    }
    response
}

/// Adds the security headers to a console response (pages are never cached).
pub async fn secure(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}
