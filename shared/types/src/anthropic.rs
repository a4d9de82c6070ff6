//! Anthropic tools: `[{name, description, input_schema}]`.

use crate::compile::{CompatIssue, Lowered};
use crate::json_schema::{Options, provider_parameters};
use serde_json::{Value, json};

/// Whether a name matches Anthropic's `^[a-zA-Z0-9_-]{1,64}$`.
pub(crate) fn is_anthropic_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// One Anthropic tool per function; JSON Schema with `$defs` as `input_schema`.
pub(crate) fn compile(lowered: &Lowered) -> (Value, Vec<CompatIssue>) {
    let mut tools = Vec::new();
    let mut report = Vec::new();
    for function in &lowered.functions {
        let (schema, mut issues) = provider_parameters(lowered, function, Options::default());
        report.append(&mut issues);
        if !is_anthropic_name(&function.name) {
            report.push(CompatIssue {
                path: format!("{}/name", function.path),
                issue: "Anthropic tool names match ^[a-zA-Z0-9_-]{1,64}$".into(),
                mapping: "none: shorten the name to 64 characters".into(),
                blocking: true,
            });
        }
        tools.push(json!({ "name": function.name, "description": function.description, "input_schema": schema }));
    }
    (Value::Array(tools), report)
}
