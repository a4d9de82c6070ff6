//! Located problems: with a rule list (on write) or with a request context.

pub(crate) mod position;

use serde::Serialize;

/// One problem with a rule list, located relative to the list (e.g. "/2/condition", "" for the list itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleError {
    /// JSON pointer relative to the rule list.
    pub path: String,
    /// What is wrong, with the position in the condition and a hint where one exists.
    pub message: String,
}

impl RuleError {
    /// An error at `/<index>/<field>`.
    pub(crate) fn at(index: usize, field: &str, message: impl Into<String>) -> Self {
        Self { path: registry_types::pointer(&format!("/{index}"), field), message: message.into() }
    }
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// One problem with a request context, located relative to the context (e.g. "/user/roles").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextError {
    /// JSON pointer relative to the context object.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ContextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Why the JSON text of a request context could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum ContextJsonError {
    /// Not a request context (the parser's message, with line and column).
    #[error("invalid request context: {0}")]
    Json(serde_json::Error),
    /// A request context that breaks the context limits: every violation.
    #[error("request context over its limits: {} problem(s)", .0.len())]
    Limits(Vec<ContextError>),
}
