//! The whole pipeline for one invocation: raw event -> typed arguments -> handler ->
//! response. Nothing here panics on any input, and a panic inside the handler is caught
//! and answered with `FAILURE`.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::arguments::Arguments;
use crate::builder::ResponseBuilder;
use crate::error::ToolError;
use crate::event::{ActionGroupEvent, Attributes};
use crate::parse::{EventError, parse_event};
use crate::response::{ActionGroupResponse, ResponseState};

/// Runs a handler that takes typed arguments `T` (see [`Arguments::extract`]).
///
/// Malformed events give `FAILURE` naming the problem, invalid arguments give
/// `REPROMPT` naming each parameter, and the handler's result is mapped as documented on
/// [`ToolError`].
pub fn handle<T, R, F>(event: &Value, handler: F) -> ActionGroupResponse
where
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Result<R, ToolError>,
{
    answer(event, |parsed| handler(Arguments::typed(parsed)?))
}

/// [`handle`] for an event already parsed (e.g. by [`parse_event`] before a check that
/// reads it, as the registry's call guard does).
pub fn handle_parsed<T, R, F>(parsed: ActionGroupEvent, handler: F) -> ActionGroupResponse
where
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Result<R, ToolError>,
{
    answer_parsed(parsed, |event| handler(Arguments::typed(event)?))
}

/// Runs a handler that sees the parsed event and the converted [`Arguments`]; for tools
/// that serve several functions or need the session attributes.
pub fn handle_event<R, F>(event: &Value, handler: F) -> ActionGroupResponse
where
    R: Serialize,
    F: FnOnce(&ActionGroupEvent, Arguments) -> Result<R, ToolError>,
{
    answer(event, |parsed| handler(parsed, Arguments::from_event(parsed)?))
}

/// Reads `event` and answers it with what `call` makes of it (a panic included).
fn answer<R, F>(event: &Value, call: F) -> ActionGroupResponse
where
    R: Serialize,
    F: FnOnce(&ActionGroupEvent) -> Result<R, ToolError>,
{
    match parse_event(event) {
        Ok(parsed) => answer_parsed(parsed, call),
        Err(e) => malformed_response(event, &e),
    }
}

/// Answers the parsed event `parsed` with what `call` makes of it (a panic included).
fn answer_parsed<R, F>(parsed: ActionGroupEvent, call: F) -> ActionGroupResponse
where
    R: Serialize,
    F: FnOnce(&ActionGroupEvent) -> Result<R, ToolError>,
{
    let outcome = catch_unwind(AssertUnwindSafe(|| call(&parsed)));
    let builder = ResponseBuilder::from_event(parsed);
    match outcome {
        Ok(result) => with_result(builder, result),
        Err(payload) => with_panic(builder, payload.as_ref()),
    }
}

/// Like [`handle`], from the event's JSON text; text that is not valid JSON (for example a
/// lone UTF-16 surrogate escape) gives a `FAILURE` response naming the error, as
/// `serde_json` words it.
pub fn handle_json<T, R, F>(event: &str, handler: F) -> ActionGroupResponse
where
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Result<R, ToolError>,
{
    handle_body(event.as_bytes(), handler)
}

/// Like [`handle_json`], from an invocation body's bytes, as [`crate::run`] receives them. A
/// body that is not JSON (or not UTF-8) gives the `FAILURE` response naming `serde_json`'s
/// error.
pub fn handle_body<T, R, F>(body: &[u8], handler: F) -> ActionGroupResponse
where
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Result<R, ToolError>,
{
    match serde_json::from_slice::<Value>(body) {
        Ok(v) => handle(&v, handler),
        Err(e) => unreadable_response(&e),
    }
}

/// The response for a handler result: the success value as body, or the mapped error.
pub fn respond<R: Serialize>(
    event: &ActionGroupEvent,
    result: Result<R, ToolError>,
) -> ActionGroupResponse {
    with_result(ResponseBuilder::new(event), result)
}

fn with_result<R: Serialize>(
    builder: ResponseBuilder,
    result: Result<R, ToolError>,
) -> ActionGroupResponse {
    match result {
        Ok(value) => builder.json(&value).build(),
        Err(e) => builder.error(&e).build(),
    }
}

/// The `FAILURE` response for an event that could not be read; names the problem and echoes
/// the action group and operation names the raw event has, exactly, leaving out those it
/// has not ([`ResponseBuilder::echoing`]).
pub fn malformed_response(event: &Value, error: &EventError) -> ActionGroupResponse {
    ResponseBuilder::echoing(event)
        .session_attributes(string_map(event.get("sessionAttributes")))
        .prompt_session_attributes(string_map(event.get("promptSessionAttributes")))
        .text(error.to_string())
        .state(Some(ResponseState::Failure))
        .build()
}

/// An event's attribute map echoed as it is when it is an object of strings; any other shape
/// (missing, not an object, a non-string value) echoes nothing, since Bedrock refuses it.
fn string_map(value: Option<&Value>) -> Attributes {
    let Some(Value::Object(map)) = value else { return Attributes::new() };
    map.iter()
        .map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())))
        .collect::<Option<Attributes>>()
        .unwrap_or_default()
}

/// The `FAILURE` response for event text that is not valid JSON.
pub fn unreadable_response(error: &serde_json::Error) -> ActionGroupResponse {
    ResponseBuilder::echoing(&Value::Null)
        .text(format!("malformed action-group event: not valid JSON: {error}"))
        .state(Some(ResponseState::Failure))
        .build()
}

/// The `FAILURE` response for a handler that panicked.
pub fn panic_response(event: &ActionGroupEvent, payload: &(dyn Any + Send)) -> ActionGroupResponse {
    with_panic(ResponseBuilder::new(event), payload)
}

fn with_panic(builder: ResponseBuilder, payload: &(dyn Any + Send)) -> ActionGroupResponse {
    builder
        .text(format!("the tool handler panicked: {}", panic_message(payload)))
        .state(Some(ResponseState::Failure))
        .build()
}

/// The message of a panic payload (`&str` or `String`), or a placeholder.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}
