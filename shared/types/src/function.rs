//! Wire form of a tool's functions, their parameters and named types.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Whether Bedrock asks the user to confirm before calling the function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Confirmation {
    /// Ask for confirmation.
    Enabled,
    /// Do not ask.
    Disabled,
}

/// One function a tool exposes to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FunctionDefinition {
    /// Function name (Bedrock action-group name pattern).
    pub name: String,
    /// What the function does, for the model.
    #[serde(default)]
    pub description: String,
    /// Parameters by name; names are kept byte for byte.
    #[serde(default)]
    pub parameters: BTreeMap<String, ParameterDefinition>,
    /// Bedrock user-confirmation setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_confirmation: Option<Confirmation>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: BTreeMap<String, Value>,
}

/// A parameter or property: a scalar, a named type, `T[]`, an inline object or array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParameterDefinition {
    /// Human-readable description.
    #[serde(default)]
    pub description: String,
    /// `string|number|integer|boolean|object|array|unknown|file`, a named type, or `T[]`.
    #[serde(rename = "type")]
    pub ty: String,
    /// Whether the caller must supply it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Allowed string values.
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<Value>>,
    /// Element type for arrays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(no_recursion)]
    pub items: Option<Box<ParameterDefinition>>,
    /// Properties for inline objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(no_recursion)]
    pub properties: Option<BTreeMap<String, ParameterDefinition>>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: BTreeMap<String, Value>,
}

/// A named type in a tool's `types` map (owned by the type-language work, issue 5).
pub type TypeDefinition = Value;
