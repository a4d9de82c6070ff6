//! A stand-in for CloudFormation's pre-signed S3 response URL: records every PUT (path,
//! `Content-Type` as sent, body) so that tests can read what the function answered.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::routing::put;
use http::{HeaderMap, StatusCode};
use serde_json::Value;

/// One PUT received.
#[derive(Debug, Clone, PartialEq)]
pub struct Put {
    /// The URL path (without the leading `/`).
    pub path: String,
    /// The `Content-Type` header as sent (`None` when absent).
    pub content_type: Option<String>,
    /// The body, parsed as JSON (`Null` when it was not JSON).
    pub body: Value,
    /// Size of the body in bytes.
    pub size: usize,
    /// When it was received.
    pub received: SystemTime,
}

type Log = Arc<Mutex<Vec<Put>>>;

/// The recording server.
pub struct ResponseUrl {
    addr: SocketAddr,
    log: Log,
}

impl ResponseUrl {
    /// Starts the server on a free loopback port.
    pub async fn start() -> Self {
        let log = Log::default();
        let app = Router::new().route("/{*path}", put(record)).with_state(log.clone());
        let addr = crate::serve_local(app).await;
        Self { addr, log }
    }

    /// A pre-signed-looking URL whose path is `name`.
    pub fn url(&self, name: &str) -> String {
        format!(
            "http://{}/{name}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=7200&X-Amz-Signature=e2e",
            self.addr
        )
    }

    /// Every PUT to `name`, in order.
    pub fn puts(&self, name: &str) -> Vec<Put> {
        self.log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter(|p| p.path == name)
            .cloned()
            .collect()
    }
}

async fn record(
    State(log): State<Log>,
    Path(path): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let content_type = headers
        .get(http::header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let parsed = serde_json::from_slice(&body).unwrap_or(Value::Null);
    log.lock().unwrap_or_else(|e| e.into_inner()).push(Put {
        path,
        content_type,
        body: parsed,
        size: body.len(),
        received: SystemTime::now(),
    });
    StatusCode::OK
}
