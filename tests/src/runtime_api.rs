//! A local Lambda Runtime API (the `2018-06-01` endpoints a function's runtime client
//! polls), on 127.0.0.1: events are queued by the test, handed out on `next` with the
//! headers Lambda sends, and the function's response or error is returned to the caller.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use http::{HeaderMap, HeaderValue, StatusCode};
use serde_json::Value;
use tokio::sync::{Notify, oneshot};

/// What the function answered to one invocation.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// `POST .../invocation/{id}/response`, body parsed as JSON (or a string).
    Response(Value),
    /// `POST .../invocation/{id}/error`.
    Error(Value),
}

struct Pending {
    id: String,
    body: Value,
    deadline_ms: u64,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<VecDeque<Pending>>,
    queued: Notify,
    waiting: Mutex<HashMap<String, oneshot::Sender<Answer>>>,
    first_poll: Mutex<Option<Instant>>,
    init_error: Mutex<Option<Value>>,
    next_id: Mutex<u64>,
}

/// The server; dropped with the test (its task ends with the runtime).
pub struct RuntimeApi {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl RuntimeApi {
    /// Starts the server on a free loopback port.
    pub async fn start() -> Self {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .route("/2018-06-01/runtime/invocation/next", get(next))
            .route("/2018-06-01/runtime/invocation/{id}/response", post(response))
            .route("/2018-06-01/runtime/invocation/{id}/error", post(error))
            .route("/2018-06-01/runtime/init/error", post(init_error))
            .with_state(shared.clone());
        let addr = crate::serve_local(app).await;
        Self { addr, shared }
    }

    /// `host:port`, the value of `AWS_LAMBDA_RUNTIME_API`.
    pub fn address(&self) -> String {
        self.addr.to_string()
    }

    /// Queues `event` with a deadline `timeout` from now and waits (at most `timeout`
    /// plus a grace period) for the function's answer.
    pub async fn invoke(&self, event: Value, timeout: Duration) -> Answer {
        let (tx, rx) = oneshot::channel();
        let id = {
            let mut n = self.shared.next_id.lock().unwrap_or_else(|e| e.into_inner());
            *n += 1;
            format!("e2e-invocation-{n:04}")
        };
        let deadline = SystemTime::now() + timeout;
        let deadline_ms = deadline
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or_default();
        self.shared.waiting.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), tx);
        self.shared.queue.lock().unwrap_or_else(|e| e.into_inner()).push_back(Pending {
            id: id.clone(),
            body: event,
            deadline_ms,
        });
        self.shared.queued.notify_one();
        match tokio::time::timeout(timeout + Duration::from_secs(20), rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => panic!("invocation {id}: the runtime API dropped it"),
            Err(_) => panic!(
                "invocation {id}: no answer from the function (init error: {:?})",
                self.init_error()
            ),
        }
    }

    /// When the function first asked for an invocation (it has initialized).
    pub fn first_poll(&self) -> Option<Instant> {
        *self.shared.first_poll.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What the function reported to `init/error`, if anything.
    pub fn init_error(&self) -> Option<Value> {
        self.shared.init_error.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

async fn next(State(shared): State<Arc<Shared>>) -> Response {
    shared.first_poll.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(Instant::now);
    loop {
        let notified = shared.queued.notified();
        if let Some(p) = shared.queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front() {
            let mut headers = HeaderMap::new();
            let header =
                |v: String| HeaderValue::from_str(&v).unwrap_or(HeaderValue::from_static("x"));
            headers.insert("lambda-runtime-aws-request-id", header(p.id.clone()));
            headers.insert("lambda-runtime-deadline-ms", header(p.deadline_ms.to_string()));
            headers.insert(
                "lambda-runtime-invoked-function-arn",
                HeaderValue::from_static("arn:aws:lambda:us-east-1:123456789012:function:e2e"),
            );
            headers.insert("lambda-runtime-trace-id", header(format!("Root=1-e2e-{}", p.id)));
            headers
                .insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            return (StatusCode::OK, headers, p.body.to_string()).into_response();
        }
        notified.await;
    }
}

fn parse(body: &Bytes) -> Value {
    serde_json::from_slice(body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into()))
}

fn deliver(shared: &Shared, id: &str, answer: Answer) -> StatusCode {
    match shared.waiting.lock().unwrap_or_else(|e| e.into_inner()).remove(id) {
        Some(tx) => {
            let _ = tx.send(answer);
            StatusCode::ACCEPTED
        }
        None => StatusCode::BAD_REQUEST,
    }
}

async fn response(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Bytes,
) -> StatusCode {
    deliver(&shared, &id, Answer::Response(parse(&body)))
}

async fn error(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Bytes,
) -> StatusCode {
    deliver(&shared, &id, Answer::Error(parse(&body)))
}

async fn init_error(State(shared): State<Arc<Shared>>, body: Bytes) -> StatusCode {
    *shared.init_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(parse(&body));
    StatusCode::ACCEPTED
}
