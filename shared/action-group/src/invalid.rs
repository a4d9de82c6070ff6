//! Invalid-argument reports: a list of (JSON pointer, message) the model can act on.

use std::fmt;

/// One problem with the arguments: where (a JSON pointer into the arguments object,
/// e.g. `/amount` or `/filters/minPrice`) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentError {
    /// JSON pointer (RFC 6901) into the arguments object; its first segment is the parameter.
    pub pointer: String,
    /// What is wrong, e.g. `expected a number, got "12abc"`.
    pub message: String,
}

impl ArgumentError {
    /// A problem with the whole parameter `name`.
    pub fn parameter(name: &str, message: impl Into<String>) -> Self {
        Self { pointer: pointer(&[name]), message: message.into() }
    }

    /// A problem at an explicit JSON pointer (as produced by a schema validator).
    pub fn at(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self { pointer: pointer.into(), message: message.into() }
    }

    /// The parameter the pointer starts in (unescaped), or `""` for the arguments object itself.
    pub fn parameter_name(&self) -> String {
        let first = self.pointer.strip_prefix('/').unwrap_or("").split('/').next().unwrap_or("");
        first.replace("~1", "/").replace("~0", "~")
    }
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() { "arguments" } else { &self.pointer };
        write!(f, "{at}: {}", self.message)
    }
}

/// Every problem found in one call's arguments. Turned into a REPROMPT response whose
/// text names each parameter to fix.
///
/// It deliberately does not implement `std::error::Error`, so `?` converts it into
/// [`crate::ToolError::InvalidArguments`] rather than a generic failure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InvalidArguments {
    /// The problems, in discovery order.
    pub errors: Vec<ArgumentError>,
}

impl InvalidArguments {
    /// A report with a single problem.
    pub fn one(error: ArgumentError) -> Self {
        Self { errors: vec![error] }
    }

    /// Whether no problem was recorded.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// Adds a problem.
    pub fn push(&mut self, error: ArgumentError) {
        self.errors.push(error);
    }

    /// `Ok(())` when empty, otherwise `Err(self)`.
    pub fn into_result(self) -> Result<(), InvalidArguments> {
        if self.is_empty() { Ok(()) } else { Err(self) }
    }

    /// The REPROMPT text for the model: names every parameter and says what to fix.
    pub fn reprompt_text(&self) -> String {
        let mut names: Vec<String> = Vec::new();
        for e in &self.errors {
            let n = e.parameter_name();
            if !n.is_empty() && !names.contains(&n) {
                names.push(n);
            }
        }
        let mut out = if names.is_empty() {
            String::from("Invalid arguments. Fix them and call the function again:")
        } else {
            format!(
                "Invalid arguments. Fix the parameter{} {} and call the function again:",
                if names.len() == 1 { "" } else { "s" },
                names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            )
        };
        for e in &self.errors {
            out.push_str("\n- ");
            out.push_str(&e.to_string());
        }
        out
    }
}

impl fmt::Display for InvalidArguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.errors.iter().map(ToString::to_string).collect();
        write!(f, "invalid arguments: {}", parts.join("; "))
    }
}

impl From<ArgumentError> for InvalidArguments {
    fn from(error: ArgumentError) -> Self {
        Self::one(error)
    }
}

impl From<Vec<ArgumentError>> for InvalidArguments {
    fn from(errors: Vec<ArgumentError>) -> Self {
        Self { errors }
    }
}

impl<P: Into<String>, M: Into<String>> FromIterator<(P, M)> for InvalidArguments {
    fn from_iter<I: IntoIterator<Item = (P, M)>>(iter: I) -> Self {
        Self { errors: iter.into_iter().map(|(p, m)| ArgumentError::at(p, m)).collect() }
    }
}

/// Builds a JSON pointer from unescaped segments (`~` -> `~0`, `/` -> `~1`).
pub fn pointer<S: AsRef<str>>(segments: &[S]) -> String {
    segments.iter().fold(String::new(), |out, s| registry_types::pointer(&out, s.as_ref()))
}

/// Quotes a user-supplied value for an error message, cut to 80 characters.
pub(crate) use registry_types::quote;
