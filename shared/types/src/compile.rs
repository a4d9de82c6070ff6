//! The compile entry point: target formats, the compiled result and its compatibility report.

use crate::model::{Function, Types, lower_function, lower_types};
use crate::{FunctionDefinition, SchemaError, TypeDefinition, validate_tool_schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A schema target (`GET /tools/{id}/schema?format=...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// JSON Schema draft 2020-12, one schema per function keyed by function name.
    JsonSchema,
    /// Bedrock `functionSchema` (`{"functions": [...]}`).
    Bedrock,
    /// OpenAI strict function tools (`[{"type":"function","function":{...,"strict":true}}]`).
    Openai,
    /// Anthropic tools (`[{name, description, input_schema}]`).
    Anthropic,
    /// MCP tools (`[{name, description, inputSchema}]`).
    Mcp,
}

impl Format {
    /// Every format, in wire-name order of the documentation.
    pub const ALL: [Format; 5] =
        [Format::JsonSchema, Format::Bedrock, Format::Openai, Format::Anthropic, Format::Mcp];

    /// The wire name (`json-schema|bedrock|openai|anthropic|mcp`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::JsonSchema => "json-schema",
            Self::Bedrock => "bedrock",
            Self::Openai => "openai",
            Self::Anthropic => "anthropic",
            Self::Mcp => "mcp",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown format name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown schema format `{0}`: use json-schema, bedrock, openai, anthropic or mcp")]
pub struct UnknownFormat(pub String);

impl std::str::FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| UnknownFormat(s.to_string()))
    }
}

/// Something a target cannot express, and what was done about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CompatIssue {
    /// JSON Pointer, from the tool root, of the construct concerned.
    pub path: String,
    /// What the target cannot express.
    pub issue: String,
    /// How it was mapped instead (or why it could not be).
    pub mapping: String,
    /// True when the target cannot take the tool at all (it is rejected on write for a
    /// framework the tool lists).
    pub blocking: bool,
}

/// A compiled schema with its compatibility report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Compiled {
    /// The target.
    pub format: Format,
    /// The compiled document (shape per [`Format`]).
    pub schema: Value,
    /// What the target cannot express and how it was mapped; empty when lossless.
    pub report: Vec<CompatIssue>,
}

impl Compiled {
    /// True when some issue makes the schema unusable for the target.
    pub fn is_blocked(&self) -> bool {
        self.report.iter().any(|issue| issue.blocking)
    }
}

/// Compiles a tool's functions and types to `format`; `Err` lists every schema problem
/// (as [`validate_tool_schema`] without the bedrock rules).
pub fn compile(
    functions: Option<&[FunctionDefinition]>,
    types: Option<&BTreeMap<String, TypeDefinition>>,
    format: Format,
) -> Result<Compiled, Vec<SchemaError>> {
    let errors = validate_tool_schema(functions, types, false);
    if !errors.is_empty() {
        return Err(errors);
    }
    let functions = functions.unwrap_or_default();
    let (schema, report) = match format {
        Format::Bedrock => {
            let (compiled, report) = crate::bedrock::compile_functions(functions, types);
            (serde_json::json!({ "functions": compiled }), report)
        }
        _ => {
            let lowered = lower(functions, types);
            match format {
                Format::JsonSchema => crate::json_schema::compile(&lowered),
                Format::Openai => crate::openai::compile(&lowered),
                Format::Anthropic => crate::anthropic::compile(&lowered),
                _ => crate::mcp::compile(&lowered),
            }
        }
    };
    Ok(Compiled { format, schema, report: dedup(report) })
}

/// A tool lowered for compilation.
pub(crate) struct Lowered {
    pub(crate) functions: Vec<Function>,
    pub(crate) types: Types,
}

pub(crate) fn lower(
    functions: &[FunctionDefinition],
    types: Option<&BTreeMap<String, TypeDefinition>>,
) -> Lowered {
    Lowered {
        functions: functions
            .iter()
            .enumerate()
            .map(|(index, f)| lower_function(index, f))
            .collect(),
        types: lower_types(types),
    }
}

/// Drops repeated issues (a named type inlined twice reports once), keeping first order.
pub(crate) fn dedup(report: Vec<CompatIssue>) -> Vec<CompatIssue> {
    let mut out: Vec<CompatIssue> = Vec::with_capacity(report.len());
    for issue in report {
        if !out.iter().any(|seen| seen.path == issue.path && seen.issue == issue.issue) {
            out.push(issue);
        }
    }
    out
}
