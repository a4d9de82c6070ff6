//! The whole pipeline for one invocation: raw event -> typed arguments -> handler ->
//! response. Nothing here panics on any input, and a panic inside the handler is caught
//! and answered with `FAILURE`.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::{RawValue, to_raw_value};

use crate::arguments::Arguments;
use crate::builder::ResponseBuilder;
use crate::error::ToolError;
use crate::event::{ActionGroupEvent, Attributes};
use crate::extract::extract_entries;
use crate::parse::{EventError, EventView, parse_event, view};
use crate::reply;
use crate::response::{ActionGroupResponse, ResponseState};
use crate::scan;
use crate::slots::{
    AttributeSlots, EventSlots, RootSlots, Slot, from_bytes, from_text, from_value,
};

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
    match from_value(event) {
        Ok(root) => handle_slots(&root, handler),
        Err(e) => unreadable_response(&e),
    }
}

/// [`handle`] and [`handle_json`] after the serde read of the event.
fn handle_slots<T, R, F>(root: &RootSlots<'_>, handler: F) -> ActionGroupResponse
where
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Result<R, ToolError>,
{
    match view(root) {
        Ok(view) => handle_view(&view, handler),
        Err(e) => malformed(root, &e),
    }
}

/// The pipeline once the event is read and validated.
fn handle_view<T, R, F>(view: &EventView<'_>, handler: F) -> ActionGroupResponse
where
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Result<R, ToolError>,
{
    answer(view, run_handler(view, handler))
}

/// What the handler made of the event's arguments; `Err` holds the payload of a panic.
type Outcome<R> = Result<Result<R, ToolError>, Box<dyn Any + Send>>;

/// Converts and extracts the arguments and calls the handler, catching a panic.
fn run_handler<T, R, F>(view: &EventView<'_>, handler: F) -> Outcome<R>
where
    T: DeserializeOwned,
    F: FnOnce(T) -> Result<R, ToolError>,
{
    catch_unwind(AssertUnwindSafe(|| {
        let triples = || view.all_parameters().map(|p| (p.name, p.kind, p.value));
        let args = match Arguments::converted(triples()).and_then(extract_entries) {
            Some(args) => args,
            None => Arguments::from_triples(triples())?.extract::<T>()?,
        };
        handler(args)
    }))
}

/// The response to `view` for what its handler did.
fn answer<R: Serialize>(view: &EventView<'_>, outcome: Outcome<R>) -> ActionGroupResponse {
    let builder = ResponseBuilder::from_view(view);
    match outcome {
        Ok(result) => with_result(builder, result),
        Err(payload) => with_panic(builder, payload.as_ref()),
    }
}

/// Runs a handler that sees the parsed event and the converted [`Arguments`]; for tools
/// that serve several functions or need the session attributes.
pub fn handle_event<R, F>(event: &Value, handler: F) -> ActionGroupResponse
where
    R: Serialize,
    F: FnOnce(&ActionGroupEvent, Arguments) -> Result<R, ToolError>,
{
    let parsed = match parse_event(event) {
        Ok(e) => e,
        Err(e) => return malformed_response(event, &e),
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let args = Arguments::from_event(&parsed)?;
        handler(&parsed, args)
    }));
    let builder = ResponseBuilder::from_event(parsed);
    match outcome {
        Ok(result) => with_result(builder, result),
        Err(payload) => with_panic(builder, payload.as_ref()),
    }
}

/// Event text read once: by the fast reader ([`scan`]) when it takes it, else by serde.
enum Read<'a> {
    /// Read and validated by the fast reader.
    Fast(scan::Plain<'a>),
    /// Read by serde, to be validated by [`view`].
    Slots(RootSlots<'a>),
}

/// Reads event text (see [`Read`]); `Err` when it is not JSON.
fn read_text(text: &str) -> Result<Read<'_>, serde_json::Error> {
    match scan::read(text) {
        Some(view) => Ok(Read::Fast(view)),
        None => from_text(text).map(Read::Slots),
    }
}

/// Reads an invocation body; bytes that are not UTF-8 go to serde, which names the error.
fn read_body(body: &[u8]) -> Result<Read<'_>, serde_json::Error> {
    match std::str::from_utf8(body) {
        Ok(text) => read_text(text),
        Err(_) => from_bytes(body).map(Read::Slots),
    }
}

/// The pipeline after [`read_text`] or [`read_body`].
fn handle_read<T, R, F>(
    read: Result<Read<'_>, serde_json::Error>,
    handler: F,
) -> ActionGroupResponse
where
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Result<R, ToolError>,
{
    match read {
        Ok(Read::Fast(view)) => handle_view(&view, handler),
        Ok(Read::Slots(root)) => handle_slots(&root, handler),
        Err(e) => unreadable_response(&e),
    }
}

/// Like [`handle`], from the event's JSON text, read once (no `Value` is built); text that
/// is not valid JSON (for example a lone UTF-16 surrogate escape) gives a `FAILURE`
/// response naming the error, as `serde_json` words it.
pub fn handle_json<T, R, F>(event: &str, handler: F) -> ActionGroupResponse
where
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Result<R, ToolError>,
{
    handle_read(read_text(event), handler)
}

/// Like [`handle_json`], from an invocation body's bytes, as [`crate::run`] receives them. A
/// body that is not UTF-8 is read by `serde_json`, whose error the `FAILURE` response names.
pub fn handle_body<T, R, F>(body: &[u8], handler: F) -> ActionGroupResponse
where
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Result<R, ToolError>,
{
    handle_read(read_body(body), handler)
}

/// [`handle_body`]'s response as the JSON text [`crate::run`] posts. A successful handler
/// on a plainly written event (as Bedrock sends them) has its response written straight
/// from the event, without building an [`ActionGroupResponse`]; the text is the same.
///
/// # Errors
/// Only if serializing the response fails, which no response this crate builds does.
pub fn handle_body_raw<T, R, F>(body: &[u8], handler: F) -> Result<Box<RawValue>, serde_json::Error>
where
    T: DeserializeOwned,
    R: Serialize,
    F: FnOnce(T) -> Result<R, ToolError>,
{
    let view = match read_body(body) {
        Ok(Read::Fast(view)) => view,
        other => return to_raw_value(&handle_read(other, handler)),
    };
    let outcome = run_handler(&view, handler);
    if let Ok(Ok(value)) = &outcome
        && let Some(raw) = reply::success(&view, value)
    {
        return Ok(raw);
    }
    to_raw_value(&answer(&view, outcome))
}

/// Reads event text once into an owned event; text that cannot be read or validated gives
/// the `FAILURE` response [`handle_json`] would give.
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
pub(crate) fn event_from_text(event: &str) -> Result<ActionGroupEvent, Box<ActionGroupResponse>> {
    match read_text(event) {
        Ok(Read::Fast(view)) => Ok(view.to_event()),
        Ok(Read::Slots(root)) => match view(&root) {
            Ok(v) => Ok(v.to_event()),
            Err(e) => Err(Box::new(malformed(&root, &e))),
        },
        Err(e) => Err(Box::new(unreadable_response(&e))),
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
/// whatever action group and operation names the raw event has.
pub fn malformed_response(event: &Value, error: &EventError) -> ActionGroupResponse {
    match from_value(event) {
        Ok(root) => malformed(&root, error),
        Err(_) => malformed(&RootSlots::Absent, error),
    }
}

/// [`malformed_response`] from the event's slots.
pub(crate) fn malformed(root: &RootSlots<'_>, error: &EventError) -> ActionGroupResponse {
    let none = EventSlots::default();
    let event = root.get().unwrap_or(&none);
    let builder = match event.api_path.str() {
        Some(path) if event.function.is_absent() => {
            ResponseBuilder::api(text(&event.action_group), path, text(&event.http_method))
        }
        _ => ResponseBuilder::function(text(&event.action_group), text(&event.function)),
    };
    builder
        .session_attributes(string_map(&event.session_attributes))
        .prompt_session_attributes(string_map(&event.prompt_session_attributes))
        .text(error.to_string())
        .state(Some(ResponseState::Failure))
        .build()
}

/// A string field's text, or `""` when it is not a string.
fn text<'a>(slot: &'a Slot<'_>) -> &'a str {
    slot.str().unwrap_or("")
}

/// An event's attribute map echoed as it is when it is an object of strings; any other shape
/// (missing, not an object, a non-string value) echoes nothing, since Bedrock refuses it.
fn string_map(slot: &AttributeSlots<'_>) -> Attributes {
    let Some(entries) = slot.get() else { return Attributes::new() };
    entries
        .as_map()
        .into_iter()
        .map(|(k, v)| v.str().map(|s| (k.to_owned(), s.to_owned())))
        .collect::<Option<Attributes>>()
        .unwrap_or_default()
}

/// The `FAILURE` response for event text that is not valid JSON.
pub fn unreadable_response(error: &serde_json::Error) -> ActionGroupResponse {
    ResponseBuilder::function("", "")
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
