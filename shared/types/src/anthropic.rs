//! Anthropic tools: `[{name, description, input_schema}]`.

use crate::compile::{CompatIssue, Lowered};
use crate::json_schema::tools_per_function;
use serde_json::Value;

/// Whether a name matches Anthropic's `^[a-zA-Z0-9_-]{1,64}$`.
pub(crate) fn is_anthropic_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// One Anthropic tool per function; JSON Schema with `$defs` as `input_schema`.
pub(crate) fn compile(lowered: &Lowered) -> (Value, Vec<CompatIssue>) {
    let rule = "Anthropic tool names match ^[a-zA-Z0-9_-]{1,64}$";
    tools_per_function(lowered, "input_schema", |name| {
        (!is_anthropic_name(name)).then(|| (rule.into(), "none: shorten the name to 64 characters"))
    })
}
