//! Failures of AWS actions that are not findings: bad requests and unreachable AWS.

use registry_core::Violation;

/// Why an AWS action could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum AwsError {
    /// The request names something the tool does not have.
    #[error("invalid request")]
    Invalid(Vec<Violation>),
    /// The tool has no Lambda to act on (an MCP or inline tool).
    #[error("{0}")]
    NotALambdaTool(String),
    /// AWS (or the local endpoint) refused or could not be reached.
    #[error("{0}")]
    Aws(String),
    /// AWS refused because of the state of a resource (e.g. an agent in use).
    #[error("{0}")]
    Conflict(String),
    /// The function answered with something that is not an action-group response.
    #[error("the function's answer is not an action-group response: {0}")]
    BadResponse(String),
}
