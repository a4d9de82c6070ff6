//! Tool schemas: a live tool compiled to a target format, and a call's arguments checked
//! against one of its functions (SPEC section 8).

use registry_core::{ToolDefinition, Unknown, Violation, pointer};
use registry_types::{CompatIssue, Format};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Catalog, Resource, ServiceError};

/// A live tool's functions compiled for one format (`GET /tools/{id}/schema`).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolSchema {
    /// The tool id.
    pub tool_id: String,
    /// The tool version the schema was compiled from.
    pub version: u64,
    /// The target format.
    pub format: Format,
    /// The compiled document; its shape depends on `format`.
    pub schema: Value,
    /// What the format cannot express and how it was mapped; empty when lossless.
    pub report: Vec<CompatIssue>,
}

/// A tool call to check (`POST /tools/{id}/validate-call`).
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallRequest {
    /// The function name, as in the tool's `functionSchema`.
    pub function: String,
    /// The call's arguments, already decoded: an object of parameter name to value.
    pub arguments: Value,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten)]
    #[schema(ignore)]
    pub unknown: Unknown,
}

/// The outcome of checking a call: `{valid: true}` or `{valid: false, errors}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct CallCheck {
    /// True when the arguments match the function's parameters.
    pub valid: bool,
    /// Every violation, paths relative to `arguments` (e.g. `/cartItems/0/quantity`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<Violation>,
}

impl Catalog {
    /// The live tool `id` compiled to `format`, with its compatibility report.
    pub async fn tool_schema(&self, id: &str, format: Format) -> Result<ToolSchema, ServiceError> {
        let tool: ToolDefinition = self.get(id).await?;
        let compiled =
            registry_types::compile(tool.function_schema.as_deref(), tool.types.as_ref(), format)
                .map_err(|errors| {
                // Stored tools passed the same checks on write; this is stale or corrupt data.
                let first = errors.first().map(ToString::to_string).unwrap_or_default();
                ServiceError::Internal(format!("stored tool `{id}` does not compile: {first}"))
            })?;
        Ok(ToolSchema {
            version: tool.version(),
            tool_id: tool.tool_id,
            format,
            schema: compiled.schema,
            report: compiled.report,
        })
    }

    /// Checks `call` against the live tool `id`. A request naming an unknown function
    /// or carrying unknown fields is [`ServiceError::Invalid`]; bad arguments are not an
    /// error but a [`CallCheck`] with `valid: false` listing every violation.
    pub async fn validate_call(
        &self,
        id: &str,
        call: &CallRequest,
    ) -> Result<CallCheck, ServiceError> {
        let tool: ToolDefinition = self.get(id).await?;
        let functions = tool.function_schema.as_deref().unwrap_or_default();
        let mut problems: Vec<Violation> = call
            .unknown
            .keys()
            .map(|key| Violation {
                path: pointer("", key),
                message: format!("unknown field `{key}`; expected `function` and `arguments`"),
            })
            .collect();
        let function = functions.iter().find(|f| f.name == call.function);
        if function.is_none() {
            let names: Vec<String> = functions.iter().map(|f| format!("`{}`", f.name)).collect();
            let known = if names.is_empty() {
                "it has no functions".to_owned()
            } else {
                format!("its functions are {}", names.join(", "))
            };
            problems.push(Violation {
                path: "/function".into(),
                message: format!("tool `{id}` has no function `{}`; {known}", call.function),
            });
        }
        let Some(function) = function.filter(|_| problems.is_empty()) else {
            return Err(ServiceError::Invalid(problems));
        };
        let errors: Vec<Violation> =
            registry_types::validate_arguments(function, tool.types.as_ref(), &call.arguments)
                .into_iter()
                .map(|e| Violation { path: e.path, message: e.message })
                .collect();
        Ok(CallCheck { valid: errors.is_empty(), errors })
    }
}
