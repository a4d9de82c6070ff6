#![doc = include_str!("../README.md")]

mod arguments;
mod authorize;
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
    handle, handle_body, handle_event, handle_json, handle_parsed, malformed_response,
    panic_message, panic_response, respond, unreadable_response,
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
