//! MCP tools: `[{name, description, inputSchema}]`.

use crate::compile::{CompatIssue, Lowered};
use crate::json_schema::{Options, provider_parameters};
use serde_json::{Value, json};

/// Longest MCP tool name.
pub const MAX_NAME: usize = 128;

/// One MCP tool per function; `inputSchema` is a JSON Schema object with `$defs`.
pub(crate) fn compile(lowered: &Lowered) -> (Value, Vec<CompatIssue>) {
    let mut tools = Vec::new();
    let mut report = Vec::new();
    for function in &lowered.functions {
        let (schema, mut issues) = provider_parameters(lowered, function, Options::default());
        report.append(&mut issues);
        if function.name.len() > MAX_NAME {
            report.push(CompatIssue {
                path: format!("{}/name", function.path),
                issue: format!("MCP tool names have at most {MAX_NAME} characters"),
                mapping: "none: shorten the name".into(),
                blocking: true,
            });
        }
        tools.push(json!({ "name": function.name, "description": function.description, "inputSchema": schema }));
    }
    (Value::Array(tools), report)
}
