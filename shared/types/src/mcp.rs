//! MCP tools: `[{name, description, inputSchema}]`.

use crate::compile::{CompatIssue, Lowered};
use crate::json_schema::tools_per_function;
use serde_json::Value;

/// Longest MCP tool name.
pub const MAX_NAME: usize = 128;

/// One MCP tool per function; `inputSchema` is a JSON Schema object with `$defs`.
pub(crate) fn compile(lowered: &Lowered) -> (Value, Vec<CompatIssue>) {
    tools_per_function(lowered, "inputSchema", |name| {
        let issue = format!("MCP tool names have at most {MAX_NAME} characters");
        (name.len() > MAX_NAME).then_some((issue, "none: shorten the name"))
    })
}
