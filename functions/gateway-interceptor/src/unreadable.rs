//! Why the interceptor cannot read an event, a JSON-RPC request or a tool list; the
//! text is what the refusal and its decision line say.

use registry_core::strict_json::JsonError;

use crate::wire::VERSION;

/// What is unreadable, and how.
#[derive(Debug, thiserror::Error)]
pub enum Unreadable {
    /// The event is not a JSON object.
    #[error("the event is not a JSON object")]
    EventNotObject,
    /// The event is not an interceptor input (the parser's message).
    #[error("{0}")]
    Event(serde_json::Error),
    /// An input version this function does not read.
    #[error("interceptorInputVersion `{0}` is not {VERSION}")]
    Version(String),
    /// A REQUEST event whose gateway request has no body.
    #[error("gatewayRequest has no body")]
    NoBody,
    /// The JSON-RPC message is not an object.
    #[error("the JSON-RPC message is not an object (batches are not accepted)")]
    MessageNotObject,
    /// The JSON-RPC message is not of JSON-RPC's shape.
    #[error("not a JSON-RPC message: {0}")]
    Message(serde_json::Error),
    /// A `tools/call` without a params object.
    #[error("tools/call needs a params object")]
    NoParams,
    /// A `tools/call`'s params not of its shape.
    #[error("unreadable tools/call parameters: {0}")]
    Params(serde_json::Error),
    /// A `tools/call` without a tool name.
    #[error("tools/call needs the tool's name as a string in params.name")]
    NoToolName,
    /// A `tools/call`'s arguments neither absent nor an object.
    #[error("params.arguments must be an object")]
    ArgumentsNotObject,
    /// A `tools/call`'s arguments not JSON, or repeating a member.
    #[error("params.arguments: {0}")]
    Arguments(JsonError),
    /// A response without a `tools/list` answer in its body.
    #[error("the tools/list answer has no body")]
    NoListBody,
    /// A `gatewayResponse` naming a member twice.
    #[error("gatewayResponse gives `{0}` twice")]
    ResponseRepeats(String),
    /// A `tools/list` answer naming a member twice.
    #[error("the tools/list answer gives `{0}` more than once")]
    ListRepeats(String),
    /// A `tools/list` answer that is not an object.
    #[error("the tools/list answer is not a JSON object")]
    ListNotObject,
    /// A `tools/list` answer with neither a result nor an error.
    #[error("the tools/list answer has neither a result nor an error")]
    NoResult,
    /// A `tools/list` result that is not an object.
    #[error("the tools/list result is not an object")]
    ResultNotObject,
    /// A `tools/list` result without tools.
    #[error("the tools/list result has no tools")]
    NoTools,
    /// A `tools/list` result whose tools are no list.
    #[error("the tools/list result's tools are not a list")]
    ToolsNotList,
}
