//! A recording proxy in front of the local AWS-API server: a function under test gets
//! its URL as its AWS endpoint; every request is recorded ([`crate::iam::Request`]) and
//! forwarded unchanged, and the server's answer returned unchanged.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, Method, StatusCode, Uri};

use crate::iam::Request;

struct Shared {
    upstream: String,
    client: reqwest::Client,
    requests: Mutex<Vec<Request>>,
}

/// The proxy; its task ends with the test's runtime.
pub struct Recorder {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

/// Headers not forwarded (hop by hop, or set by the client that forwards).
const HOP: [&str; 5] = ["host", "content-length", "connection", "transfer-encoding", "keep-alive"];

impl Recorder {
    /// Starts a proxy to `upstream` (e.g. `http://127.0.0.1:5000`) on a free port.
    pub async fn start(upstream: &str) -> Self {
        let shared = Arc::new(Shared {
            upstream: upstream.trim_end_matches('/').to_owned(),
            client: reqwest::Client::new(),
            requests: Mutex::new(Vec::new()),
        });
        let app = Router::new().fallback(forward).with_state(shared.clone());
        let addr = crate::serve_local(app).await;
        Self { addr, shared }
    }

    /// The proxy's URL (an endpoint URL for the AWS SDK).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The server the proxy forwards to.
    pub fn upstream(&self) -> &str {
        &self.shared.upstream
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

async fn forward(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path_and_query().map(|p| p.as_str().to_owned()).unwrap_or_else(|| "/".into());
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    shared.requests.lock().unwrap_or_else(|e| e.into_inner()).push(Request {
        method: method.to_string(),
        path: path.clone(),
        target: header("x-amz-target"),
        authorization: header("authorization"),
        body: body.to_vec(),
    });
    let mut request = shared.client.request(method, format!("{}{path}", shared.upstream));
    for (name, value) in &headers {
        if !HOP.contains(&name.as_str()) {
            request = request.header(name, value);
        }
    }
    let answer = match request.body(body).send().await {
        Ok(answer) => answer,
        Err(e) => return (StatusCode::BAD_GATEWAY, format!("recorder: {e}")).into_response(),
    };
    let status = answer.status();
    let mut out = HeaderMap::new();
    for (name, value) in answer.headers() {
        if !HOP.contains(&name.as_str()) {
            out.append(name, value.clone());
        }
    }
    match answer.bytes().await {
        Ok(bytes) => (status, out, bytes).into_response(),
        Err(e) => (StatusCode::BAD_GATEWAY, format!("recorder: {e}")).into_response(),
    }
}
