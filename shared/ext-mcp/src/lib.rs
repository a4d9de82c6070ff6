#![doc = include_str!("../README.md")]

mod listing;
mod params;
mod principal;
mod server;
mod service;

pub use listing::{backend_of, filter_tools};
pub use params::{MAX_PARAMS_BYTES, ToolCall, parse_tool_call};
pub use principal::{BEARER_KEYS, CLAIMS_KEY, Principal, SESSION_HEADER, session_of};
pub use server::{CALL_TIMEOUT, DRAIN, MAX_MESSAGE_BYTES, serve};
pub use service::{ExtMcpService, Gateways};

/// The messages and the service of `proto/ext_mcp.proto`, generated at build time.
#[allow(missing_docs, clippy::all, clippy::unwrap_used, clippy::expect_used)]
pub mod proto {
    tonic::include_proto!("agentgateway.dev.ext_mcp");
}

/// Why a request or a response could not be read: always answered as `INVALID`.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Malformed {
    /// `tools/call` needs exactly one backend in `service_names`.
    #[error("`tools/call` names {0} backends in `service_names`; it needs exactly one")]
    Backends(usize),
    /// No params at all.
    #[error("`tools/call` carries no params")]
    NoParams,
    /// The params are larger than [`MAX_PARAMS_BYTES`].
    #[error("the params are {0} bytes; at most {MAX_PARAMS_BYTES} are read")]
    TooLarge(usize),
    /// The bytes are not a JSON object (or nest too deep).
    #[error("{what} not a JSON object: {detail}")]
    Json {
        /// What was read, with its verb: `the params are` or `the result is`.
        what: &'static str,
        /// What the JSON parser said.
        detail: String,
    },
    /// `name` is missing, or not a non-empty string.
    #[error("the params have no tool `name` (a non-empty string)")]
    Name,
    /// `arguments` is present and not an object.
    #[error("the params' `arguments` are not an object")]
    Arguments,
    /// The method name is longer than any MCP method.
    #[error("the method name is {0} bytes long")]
    Method(usize),
    /// The `tools/list` result has no `tools` array.
    #[error("the `tools/list` result has no `tools` array")]
    Tools,
}
