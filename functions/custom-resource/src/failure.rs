//! Why a request failed (the `Reason` of its FAILED response) and why no response was
//! delivered (the Lambda's error).

use registry_core::Violation;
use registry_service::ServiceError;

use crate::provider::{AGENT_TYPE, TOOL_TYPE};
use crate::reason;

/// Why a request was answered FAILED; its text is the response's `Reason`.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// A `RequestType` other than Create, Update or Delete.
    #[error("unknown RequestType `{0}`: expected Create, Update or Delete")]
    UnknownRequestType(String),
    /// A resource type this function does not serve.
    #[error("unknown resource type `{0}`: this function serves {TOOL_TYPE} and {AGENT_TYPE}")]
    UnknownResourceType(String),
    /// The event is not one JSON object with unique keys.
    #[error("malformed event: {message} at `{path}`")]
    Malformed {
        /// What is wrong.
        message: String,
        /// Where (a JSON Pointer).
        path: String,
    },
    /// The event is not JSON.
    #[error("{0}")]
    Syntax(String),
    /// The properties are not a valid definition.
    #[error("{}", reason::violations(.0))]
    Invalid(Vec<Violation>),
    /// The id is registered by someone else than this stack.
    #[error(
        "{kind} `{id}` already exists, registered by `{owner}`; choose another id or delete that one"
    )]
    Taken {
        /// `tool` or `agent`.
        kind: &'static str,
        /// The definition id.
        id: String,
        /// Its `createdBy`.
        owner: String,
    },
    /// A concurrent writer changed the definition during an update.
    #[error(
        "{kind} `{id}` changed while this update ran (read version {expected}, now {now}); retry \
         the stack update"
    )]
    Changed {
        /// `tool` or `agent`.
        kind: &'static str,
        /// The definition id.
        id: String,
        /// The version read.
        expected: u64,
        /// The version found, or `deleted`.
        now: String,
    },
    /// A tool to delete is still used by agents.
    #[error(
        "tool `{tool_id}` is still used by agents {}; remove it from their toolIds (or make \
         those agents depend on this tool in the template, so that they are deleted first), \
         then delete again",
        agents.join(", ")
    )]
    InUse {
        /// The tool.
        tool_id: String,
        /// The agents using it.
        agents: Vec<String>,
    },
    /// Any other refusal of the registry's services.
    #[error("{}", reason::service(.0))]
    Service(ServiceError),
    /// A stored definition could not be read back as its type.
    #[error("{0}")]
    Encoding(#[from] serde_json::Error),
    /// The work panicked.
    #[error("internal error (panic): {0}")]
    Panic(String),
    /// The work ran out of its time budget.
    #[error(
        "timed out after {0} ms, answering before the Lambda deadline; the registry table did \
         not answer in time, retry the deployment"
    )]
    TimedOut(u128),
}

/// Why no response reached CloudFormation.
#[derive(Debug, thiserror::Error)]
pub enum Undelivered {
    /// The event names no response URL.
    #[error("the event has no ResponseURL: not a CloudFormation request, nothing to answer")]
    NoResponseUrl,
    /// The response could not be encoded.
    #[error("cannot encode the response: {0}")]
    Encode(serde_json::Error),
    /// The URL answered with an error status (the last attempt's).
    #[error("the response URL answered {0}")]
    Status(reqwest::StatusCode),
    /// The URL could not be reached (the last attempt's error).
    #[error("cannot reach the response URL: {0}")]
    Unreachable(reqwest::Error),
}
