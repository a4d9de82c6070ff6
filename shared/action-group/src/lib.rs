//! Typed Bedrock action-group Lambda events and responses for tool authors.
//!
//! - [`event`] / [`response`]: the input event and the response in both forms AWS documents
//!   (function details and API schema), field for field.
//! - [`parse_event`]: lenient-but-precise reading of a raw JSON event, the one reader (also
//!   behind `ActionGroupEvent`'s `Deserialize`).
//! - [`Arguments`]: strict parameter conversion ([`convert`]) and typed extraction.
//! - [`ResponseBuilder`]: TEXT bodies, response state, attributes, the size limit ([`limit`]).
//! - [`ToolError`]: error mapping to normal / `REPROMPT` / `FAILURE` responses.
//! - [`handle`]: the whole pipeline, panics included ([`handle_json`] / [`handle_body`] from
//!   event text or bytes);
//!   [`runtime::run`] (feature `runtime`) serves it with `lambda_runtime`.
//! - [`ToolCall`] / [`ToolResult`]: the provider-neutral canonical form.
//! - [`return_control`]: MCP and inline tools run by the runtime: [`parse_return_control`]
//!   reads Bedrock's `returnControl` payload into typed calls, [`ControlCall::result`]
//!   builds `returnControlInvocationResults` entries, [`session_state`] the
//!   `inlineSessionState` that resumes the session.
//! - `Arguments::from_event_with_schema` (feature `schema`): decode JSON-string rich
//!   parameters and validate every argument against the tool's registry types.

mod arguments;
mod builder;
mod canonical;
pub mod convert;
mod error;
pub mod event;
mod extract;
mod handle;
mod invalid;
pub mod limit;
mod parse;
pub mod response;
pub mod return_control;
#[cfg(feature = "runtime")]
pub mod runtime;
#[cfg(feature = "schema")]
mod schema;

pub use arguments::Arguments;
pub use builder::{DEFAULT_API_CONTENT_TYPE, ResponseBuilder};
pub use canonical::{TextContent, ToolCall, ToolResult};
pub use error::ToolError;
pub use event::{ActionGroupEvent, Agent, ApiEvent, Attributes, FunctionEvent, Parameter};
pub use handle::{
    handle, handle_body, handle_event, handle_json, malformed_response, panic_message,
    panic_response, respond, unreadable_response,
};
pub use invalid::{ArgumentError, InvalidArguments, pointer};
pub use limit::MAX_RESPONSE_BYTES;
pub use parse::{EventError, parse_event};
pub use response::{ActionGroupResponse, ResponseState};
pub use return_control::{
    ControlCall, InvocationResult, Operation, ReturnControl, parse_return_control, session_state,
};
#[cfg(feature = "runtime")]
pub use runtime::{RuntimeError, run, run_async};

/// The README's example, compiled as a doctest.
#[cfg(all(doctest, feature = "runtime"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctest;
