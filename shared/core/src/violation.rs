//! Validation failures with JSON Pointer paths.

use serde::Serialize;

/// One thing wrong with an input, located by a JSON Pointer (RFC 6901).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Violation {
    /// JSON Pointer to the offending value, e.g. `/accessRules/0/condition`.
    pub path: String,
    /// What is wrong and, where possible, how to fix it.
    pub message: String,
}

/// Every violation found in one input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Violations(Vec<Violation>);

impl Violations {
    /// No violations yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a violation at `path`.
    pub fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Violation { path: path.into(), message: message.into() });
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The recorded violations, in the order found.
    pub fn into_vec(self) -> Vec<Violation> {
        self.0
    }

    /// The recorded violations.
    pub fn as_slice(&self) -> &[Violation] {
        &self.0
    }

    /// `Ok(())` when empty, else the violations.
    pub fn into_result(self) -> Result<(), Vec<Violation>> {
        if self.0.is_empty() { Ok(()) } else { Err(self.0) }
    }
}
