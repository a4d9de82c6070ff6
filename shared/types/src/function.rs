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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
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
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParameterDefinition {
    /// Human-readable description.
    #[serde(default)]
    pub description: String,
    /// `string|number|integer|boolean|object|array|unknown|file`, a named type, or `T[]`
    /// (empty when missing, which validation reports).
    #[serde(rename = "type", default)]
    pub ty: String,
    /// Whether the caller must supply it (default `true`).
    pub required: Option<bool>,
    /// The type-language spelling of `required: false` (default `false`).
    pub optional: Option<bool>,
    /// Allowed string values.
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<Value>>,
    /// Fixed literal value (discriminators); scalar types only.
    #[serde(default, rename = "const", skip_serializing_if = "Option::is_none")]
    pub const_value: Option<Value>,
    /// Element type for arrays.
    #[schema(no_recursion)]
    pub items: Option<Box<ParameterDefinition>>,
    /// Properties for inline objects.
    #[schema(no_recursion)]
    pub properties: Option<BTreeMap<String, ParameterDefinition>>,
    /// Whether inline objects accept properties not listed (default `false`).
    pub additional_properties: Option<bool>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: BTreeMap<String, Value>,
}

impl ParameterDefinition {
    /// Whether the value must be present: `required` wins, then `!optional`, else `true`.
    pub fn is_required(&self) -> bool {
        match (self.required, self.optional) {
            (Some(required), _) => required,
            (None, Some(optional)) => !optional,
            (None, None) => true,
        }
    }
}
