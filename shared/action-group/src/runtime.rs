//! `lambda_runtime` adapter (feature `runtime`): a tool is one handler function.
//!
//! The event is received as raw JSON text, so even an event `serde_json` cannot read (for
//! example a lone UTF-16 surrogate escape) is answered with a `FAILURE` response instead of
//! a Lambda invocation error.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};

use futures::FutureExt;
use lambda_runtime::{LambdaEvent, service_fn};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::arguments::Arguments;
use crate::error::ToolError;
use crate::event::ActionGroupEvent;
use crate::handle::{event_from_text, handle_json, malformed_response, panic_response, respond};
use crate::parse::parse_event;
use crate::response::ActionGroupResponse;

/// The error `run` returns when the Lambda runtime itself fails.
pub use lambda_runtime::Error as RuntimeError;

/// Serves a synchronous handler that takes typed arguments.
pub async fn run<T, R, F>(handler: F) -> Result<(), RuntimeError>
where
    T: DeserializeOwned,
    R: Serialize,
    F: Fn(T) -> Result<R, ToolError>,
{
    let handler = &handler;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Box<RawValue>>| async move {
        Ok::<_, RuntimeError>(handle_json(event.payload.get(), handler))
    }))
    .await
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
        let response = match event_from_text(event.payload.get()) {
            Ok(parsed) => handle_parsed_async(&parsed, handler).await,
            Err(response) => *response,
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
    match parse_event(event) {
        Ok(parsed) => handle_parsed_async(&parsed, handler).await,
        Err(e) => malformed_response(event, &e),
    }
}

/// [`handle_async`] once the event is read.
async fn handle_parsed_async<T, R, F, Fut>(
    parsed: &ActionGroupEvent,
    handler: F,
) -> ActionGroupResponse
where
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Fut,
    Fut: Future<Output = Result<R, ToolError>>,
{
    let started = catch_unwind(AssertUnwindSafe(|| {
        Arguments::from_event(parsed).and_then(|a| a.extract::<T>()).map(handler)
    }));
    let future = match started {
        Ok(Ok(future)) => future,
        Ok(Err(invalid)) => return respond::<()>(parsed, Err(invalid.into())),
        Err(payload) => return panic_response(parsed, payload.as_ref()),
    };
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(result) => respond(parsed, result),
        Err(payload) => panic_response(parsed, payload.as_ref()),
    }
}
