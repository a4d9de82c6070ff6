//! A tool's definition read from the registry, its rules compiled (`ToolRules`, the
//! one compilation resolution and `authorize` share) and its functions' schemas, ready
//! to check calls against before [`decide`](crate::decide) decides them.

use std::collections::BTreeMap;

use registry_core::ToolDefinition;
use registry_core::resolve::{CompileError, ToolRules};
use registry_types::{ArgumentSchema, SchemaError};

/// A tool's definition and its compiled rules, as read at `read_at_ms`.
#[derive(Debug)]
pub struct Loaded {
    /// The access and call rules.
    pub(crate) rules: ToolRules,
    /// Each function's parameters, ready to check calls against, by function name
    /// (`Err` when the tool's schema is invalid).
    pub(crate) schemas: BTreeMap<String, Result<ArgumentSchema, SchemaError>>,
    /// The definition they came from (lifecycle, rate, rule descriptions).
    pub(crate) tool: ToolDefinition,
    /// When the read that gave them started.
    pub(crate) read_at_ms: i64,
}

impl Loaded {
    /// Compiles `tool`'s access and call rules; `Err` says why they do not compile.
    pub fn compile(tool: ToolDefinition, read_at_ms: i64) -> Result<Self, CompileError> {
        let rules = ToolRules::compile(&tool)?;
        let schemas = tool
            .function_schema
            .iter()
            .flatten()
            .map(|f| (f.name.clone(), ArgumentSchema::new(f, tool.types.as_ref())))
            .collect();
        Ok(Self { rules, schemas, tool, read_at_ms })
    }

    /// The definition the rules came from.
    pub fn tool(&self) -> &ToolDefinition {
        &self.tool
    }

    /// Its access and call rules, compiled.
    pub fn rules(&self) -> &ToolRules {
        &self.rules
    }

    /// Whether the tool has the function `function`.
    pub fn has_function(&self, function: &str) -> bool {
        self.schemas.contains_key(function)
    }

    /// Every violation of `arguments` (JSON values by parameter name) against the
    /// tool's schema for `function` (paths relative to the arguments); a function the
    /// tool lacks is one violation, as `authorize` refuses it.
    pub fn check_json(&self, function: &str, arguments: &serde_json::Value) -> Vec<SchemaError> {
        match self.schemas.get(function) {
            Some(Ok(schema)) => schema.check(arguments),
            Some(Err(invalid)) => vec![invalid.clone()],
            None => {
                vec![SchemaError::new("", format!("`{function}` is not a function of this tool"))]
            }
        }
    }

    /// The schema of `function`'s parameters (`Err` when the tool's schema is
    /// invalid); `None` when the tool has no such function.
    pub fn schema(&self, function: &str) -> Option<&Result<ArgumentSchema, SchemaError>> {
        self.schemas.get(function)
    }
}
