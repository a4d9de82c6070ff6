//! `lambda_runtime` adapter (feature `runtime`): a tool is one handler function.
//!
//! [`run`] answers each invocation from the body bytes the runtime received, read once
//! ([`crate::handle_body`]), so even an event `serde_json` cannot read (for example a lone
//! UTF-16 surrogate escape, a body that is not JSON or not UTF-8) is answered with a
//! `FAILURE` response instead of a Lambda invocation error. That needs the bytes before
//! the runtime deserializes them, hence the layer in front of it (decision 51): a plain
//! `service_fn` only sees what the runtime could deserialize. [`run_async`] is a plain
//! `service_fn` over the event's text (a body that is not JSON is the runtime's error).

use std::cell::Cell;
use std::future::Future;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::FutureExt;
use lambda_runtime::layers::TracingLayer;
use lambda_runtime::tower::Layer;
use lambda_runtime::{LambdaEvent, LambdaInvocation, Runtime, Service, service_fn};
use serde::Serialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::arguments::Arguments;
use crate::error::ToolError;
use crate::handle::{
    handle_body, malformed_response, panic_response, respond, unreadable_response,
};
use crate::parse::parse_event;
use crate::response::ActionGroupResponse;

/// The error `run` returns when the Lambda runtime itself fails.
pub use lambda_runtime::Error as RuntimeError;

/// The layer [`run`] puts in front of the runtime: it answers each invocation from its body
/// bytes and leaves the response in `pending` for the runtime's own handler
/// ([`posted`]), which the runtime then posts. The runtime serves one invocation at a time,
/// so one slot is enough.
struct Answer<'h, F, T, R> {
    handler: &'h F,
    pending: &'h Pending,
    types: PhantomData<fn(T) -> R>,
}

/// The service [`Answer`] wraps around the runtime's.
struct AnswerService<'h, S, F, T, R> {
    inner: S,
    handler: &'h F,
    pending: &'h Pending,
    types: PhantomData<fn(T) -> R>,
}

/// The response of the invocation in flight, from [`Answer`] to [`posted`].
type Pending = Cell<Option<ActionGroupResponse>>;

/// What the runtime reads as its handler's event once [`Answer`] has read the real one.
const READ: &[u8] = b"null";

/// Serves a synchronous handler that takes typed arguments.
pub async fn run<T, R, F>(handler: F) -> Result<(), RuntimeError>
where
    T: DeserializeOwned,
    R: Serialize,
    F: Fn(T) -> Result<R, ToolError>,
{
    let pending = Pending::default();
    let answer = Answer { handler: &handler, pending: &pending, types: PhantomData };
    let posted = service_fn(|_: LambdaEvent<IgnoredAny>| posted(&pending));
    Runtime::new(posted).layer(answer).layer(TracingLayer::new()).run().await
}

/// The runtime's handler under [`Answer`]: the response [`Answer`] left.
async fn posted(pending: &Pending) -> Result<ActionGroupResponse, RuntimeError> {
    pending.take().ok_or_else(|| "no action-group response was prepared".into())
}

impl<'h, S, F, T, R> Layer<S> for Answer<'h, F, T, R> {
    type Service = AnswerService<'h, S, F, T, R>;

    fn layer(&self, inner: S) -> Self::Service {
        AnswerService { inner, handler: self.handler, pending: self.pending, types: PhantomData }
    }
}

impl<S, F, T, R> Service<LambdaInvocation> for AnswerService<'_, S, F, T, R>
where
    S: Service<LambdaInvocation>,
    T: DeserializeOwned,
    R: Serialize,
    F: Fn(T) -> Result<R, ToolError>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut invocation: LambdaInvocation) -> Self::Future {
        self.pending.set(Some(handle_body(&invocation.body, self.handler)));
        invocation.body = Bytes::from_static(READ);
        self.inner.call(invocation)
    }
}

/// Serves an asynchronous handler that takes typed arguments.
pub async fn run_async<T, R, F, Fut>(handler: F) -> Result<(), RuntimeError>
where
    T: DeserializeOwned,
    R: Serialize,
    F: Fn(T) -> Fut,
    Fut: Future<Output = Result<R, ToolError>>,
{
    let handler = &handler;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Box<RawValue>>| async move {
        let response = match serde_json::from_str::<Value>(event.payload.get()) {
            Ok(value) => handle_async(&value, handler).await,
            Err(e) => unreadable_response(&e),
        };
        Ok::<_, RuntimeError>(response)
    }))
    .await
}

/// The asynchronous counterpart of [`crate::handle`]: panics while building the arguments,
/// creating the future or polling it are answered with `FAILURE`.
pub async fn handle_async<T, R, F, Fut>(event: &Value, handler: F) -> ActionGroupResponse
where
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Fut,
    Fut: Future<Output = Result<R, ToolError>>,
{
    let parsed = match parse_event(event) {
        Ok(parsed) => parsed,
        Err(e) => return malformed_response(event, &e),
    };
    let started = catch_unwind(AssertUnwindSafe(|| Arguments::typed(&parsed).map(handler)));
    let future = match started {
        Ok(Ok(future)) => future,
        Ok(Err(invalid)) => return respond::<()>(&parsed, Err(invalid.into())),
        Err(payload) => return panic_response(&parsed, payload.as_ref()),
    };
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(result) => respond(&parsed, result),
        Err(payload) => panic_response(&parsed, payload.as_ref()),
    }
}
