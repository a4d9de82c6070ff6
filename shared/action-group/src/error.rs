//! `ToolError`: what a tool handler returns when it does not succeed, and how each kind
//! maps onto a Bedrock response.

use std::fmt;

use crate::invalid::{ArgumentError, InvalidArguments};

/// The error a tool handler returns.
///
/// | variant | function-details response | API-schema response |
/// | --- | --- | --- |
/// | [`ToolError::Reply`] | normal response, the message as body | status 200 |
/// | [`ToolError::InvalidArguments`] | `REPROMPT`, body names each parameter to fix | status 400 |
/// | [`ToolError::Failure`] | `FAILURE`, the message as body | status 500 |
///
/// Any `std::error::Error` converts into [`ToolError::Failure`] with `?`;
/// [`InvalidArguments`] and [`ArgumentError`] convert into [`ToolError::InvalidArguments`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    /// A message meant for the model (e.g. "no flights on that date"): a normal response.
    Reply(String),
    /// The call's arguments are wrong: the model is reprompted with what to fix.
    InvalidArguments(InvalidArguments),
    /// Anything else: the tool failed.
    Failure(String),
}

impl ToolError {
    /// A message for the model, returned as a normal response.
    pub fn reply(message: impl Into<String>) -> Self {
        Self::Reply(message.into())
    }

    /// One invalid parameter, by name.
    pub fn invalid(parameter: &str, message: impl Into<String>) -> Self {
        Self::InvalidArguments(ArgumentError::parameter(parameter, message).into())
    }

    /// A failure with the given message.
    pub fn failure(message: impl Into<String>) -> Self {
        Self::Failure(message.into())
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Reply(m) => write!(f, "{m}"),
            Self::InvalidArguments(i) => write!(f, "{i}"),
            Self::Failure(m) => write!(f, "{m}"),
        }
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(error: E) -> Self {
        Self::Failure(error.to_string())
    }
}

impl From<InvalidArguments> for ToolError {
    fn from(errors: InvalidArguments) -> Self {
        Self::InvalidArguments(errors)
    }
}

impl From<ArgumentError> for ToolError {
    fn from(error: ArgumentError) -> Self {
        Self::InvalidArguments(error.into())
    }
}
