//! Bedrock function parameters: only string/number/integer/boolean/array exist, so richer
//! parameters travel as JSON-encoded strings whose description carries a compact schema.

use crate::compile::{CompatIssue, lower};
use crate::json_schema::{Emitter, Options};
use crate::model::{Field, Function, Shape, Types};
use crate::type_expr::Scalar;
use crate::{Confirmation, FunctionDefinition, TypeDefinition};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Longest Bedrock parameter description (`ParameterDetail.description`).
pub const MAX_PARAMETER_DESCRIPTION: usize = 500;

/// A Bedrock `ParameterDetail.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum BedrockType {
    /// Text (also the carrier of JSON-encoded rich parameters).
    String,
    /// Any number.
    Number,
    /// A whole number.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// An array of scalars (its value arrives as a JSON array text).
    Array,
}

/// One parameter in Bedrock's shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BedrockParameter {
    /// Bedrock type.
    #[serde(rename = "type")]
    pub ty: BedrockType,
    /// Description for the model (1..500 characters; omitted when empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the agent must elicit it.
    pub required: bool,
}

/// One function in Bedrock's `functionSchema.functions` shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BedrockFunction {
    /// Function name.
    pub name: String,
    /// What the function does.
    pub description: String,
    /// Parameters by name.
    pub parameters: BTreeMap<String, BedrockParameter>,
    /// User-confirmation setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_confirmation: Option<Confirmation>,
}

/// How a parameter's Bedrock string value turns into its argument value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum BedrockEncoding {
    /// Taken as the string itself.
    String,
    /// Parsed as a finite number.
    Number,
    /// Parsed as a whole number.
    Integer,
    /// `true` or `false` (any case).
    Boolean,
    /// A Bedrock `array` parameter: the value is a JSON array text.
    JsonArray,
    /// A rich parameter sent as a Bedrock `string`: the value is a JSON text.
    Json,
}

impl BedrockEncoding {
    /// True when the value must be JSON-decoded (then checked with `validate_arguments`).
    pub fn is_json(self) -> bool {
        matches!(self, Self::JsonArray | Self::Json)
    }
}

/// Bedrock's `functionSchema.functions` for a tool (what resolution puts in `actionGroups`).
/// Expects a validated tool; see [`crate::compile`] for the compatibility report.
pub fn bedrock_functions(
    functions: &[FunctionDefinition],
    types: Option<&BTreeMap<String, TypeDefinition>>,
) -> Vec<BedrockFunction> {
    compile_functions(functions, types).0
}

/// How each parameter of `function` travels through Bedrock, by parameter name.
pub fn bedrock_parameter_encodings(
    function: &FunctionDefinition,
    types: Option<&BTreeMap<String, TypeDefinition>>,
) -> BTreeMap<String, BedrockEncoding> {
    let lowered = lower(std::slice::from_ref(function), types);
    lowered
        .functions
        .iter()
        .flat_map(|f| f.parameters.properties.iter())
        .map(|p| (p.name.clone(), encoding(&p.field)))
        .collect()
}

/// Bedrock functions plus the compatibility report.
pub(crate) fn compile_functions(
    functions: &[FunctionDefinition],
    types: Option<&BTreeMap<String, TypeDefinition>>,
) -> (Vec<BedrockFunction>, Vec<CompatIssue>) {
    let lowered = lower(functions, types);
    let mut report = Vec::new();
    let compiled =
        lowered.functions.iter().map(|f| function(f, &lowered.types, &mut report)).collect();
    (compiled, report)
}

/// The encoding for a lowered field: plain scalars and arrays of them are native.
pub(crate) fn encoding(field: &Field) -> BedrockEncoding {
    match &field.shape {
        Shape::Scalar(Scalar::String) => BedrockEncoding::String,
        Shape::Scalar(Scalar::Number) => BedrockEncoding::Number,
        Shape::Scalar(Scalar::Integer) => BedrockEncoding::Integer,
        Shape::Scalar(Scalar::Boolean) => BedrockEncoding::Boolean,
        Shape::Array(items) if is_plain_scalar(items) => BedrockEncoding::JsonArray,
        _ => BedrockEncoding::Json,
    }
}

fn is_plain_scalar(field: &Field) -> bool {
    matches!(
        field.shape,
        Shape::Scalar(Scalar::String | Scalar::Number | Scalar::Integer | Scalar::Boolean)
    )
}

fn function(function: &Function, types: &Types, report: &mut Vec<CompatIssue>) -> BedrockFunction {
    let mut parameters = BTreeMap::new();
    for property in &function.parameters.properties {
        let field = &property.field;
        let (ty, description) = parameter(field, types, report);
        let description = description.trim().to_string();
        let length = description.chars().count();
        if length > MAX_PARAMETER_DESCRIPTION {
            report.push(CompatIssue {
                path: field.path.clone(),
                issue: format!(
                    "the parameter description needs {length} characters; Bedrock allows {MAX_PARAMETER_DESCRIPTION}"
                ),
                mapping: "none: shorten the descriptions or simplify the type".into(),
                blocking: true,
            });
        }
        let description = (!description.is_empty()).then_some(description);
        parameters.insert(
            property.name.clone(),
            BedrockParameter { ty, description, required: property.required },
        );
    }
    BedrockFunction {
        name: function.name.clone(),
        description: function.description.clone(),
        parameters,
        require_confirmation: function.confirmation,
    }
}

fn note(report: &mut Vec<CompatIssue>, path: &str, issue: &str, mapping: &str) {
    report.push(CompatIssue {
        path: path.into(),
        issue: issue.into(),
        mapping: mapping.into(),
        blocking: false,
    });
}

/// The Bedrock type and full description of one parameter.
fn parameter(field: &Field, types: &Types, report: &mut Vec<CompatIssue>) -> (BedrockType, String) {
    let own = field.description.clone().unwrap_or_default();
    match encoding(field) {
        BedrockEncoding::Json => json_parameter(field, types, own, report),
        BedrockEncoding::JsonArray => {
            let Shape::Array(items) = &field.shape else {
                return json_parameter(field, types, own, report);
            };
            let kind = match items.shape {
                Shape::Scalar(scalar) => scalar.as_str(),
                _ => "value",
            };
            let mut text = sentence(&own, &format!("A JSON array of {kind} values."));
            if let Some(values) = &items.enum_values {
                text = sentence(&text, &format!("Each one of: {}.", values.join(", ")));
            }
            note(
                report,
                &field.path,
                "Bedrock array parameters have no item type",
                "a Bedrock `array` whose item type is stated in the description; the value is decoded as JSON and validated",
            );
            (BedrockType::Array, text)
        }
        native => {
            let ty = match native {
                BedrockEncoding::Number => BedrockType::Number,
                BedrockEncoding::Integer => BedrockType::Integer,
                BedrockEncoding::Boolean => BedrockType::Boolean,
                _ => BedrockType::String,
            };
            let mut text = own;
            if let Some(values) = &field.enum_values {
                text = sentence(&text, &format!("One of: {}.", values.join(", ")));
                note(
                    report,
                    &field.path,
                    "Bedrock parameters have no enum",
                    "the allowed values are listed in the description and checked by argument validation",
                );
            }
            if let Some(value) = &field.const_value {
                text = sentence(&text, &format!("Always {value}."));
                note(
                    report,
                    &field.path,
                    "Bedrock parameters have no const",
                    "the value is stated in the description and checked by argument validation",
                );
            }
            (ty, text)
        }
    }
}

/// A rich parameter as a Bedrock string carrying JSON; the description embeds the schema
/// in the most readable form that fits Bedrock's 500 characters: inlined with nested
/// descriptions, inlined without, then with named types in `$defs` (each spelled once).
fn json_parameter(
    field: &Field,
    types: &Types,
    own: String,
    report: &mut Vec<CompatIssue>,
) -> (BedrockType, String) {
    let mut bare = field.clone();
    bare.description = None;
    let render = |inline: bool, no_descriptions: bool| {
        let options =
            Options { inline, no_descriptions, implicit_closed: true, ..Options::default() };
        let mut emitter = Emitter::new(types, options);
        let schema = emitter.standalone(&bare);
        let text = sentence(
            &own,
            &format!(
                "JSON-encoded: a JSON text matching the JSON Schema {}",
                serde_json::to_string(&schema).unwrap_or_default()
            ),
        );
        (text, emitter.overflow, schema.to_string().contains("\"description\""))
    };
    let (full, full_overflow, has_descriptions) = render(true, false);
    let mut chosen = (full, full_overflow);
    for (inline, no_descriptions) in [(true, true), (false, true)] {
        if chosen.0.chars().count() <= MAX_PARAMETER_DESCRIPTION {
            break;
        }
        let (text, overflow, _) = render(inline, no_descriptions);
        chosen = (text, overflow);
    }
    let (mut text, overflow) = chosen;
    if text.chars().count() > MAX_PARAMETER_DESCRIPTION {
        text = sentence(
            &own,
            &format!(
                "JSON-encoded: a JSON text of the type {}",
                crate::notation::notation(&bare, types)
            ),
        );
        note(
            report,
            &field.path,
            "the JSON Schema does not fit Bedrock's 500-character parameter description",
            "the description gives the type in a compact TypeScript-like notation instead",
        );
    }
    if has_descriptions && !text.contains("\"description\"") {
        note(
            report,
            &field.path,
            "the schema with its descriptions does not fit Bedrock's 500-character parameter description",
            "nested descriptions were left out of the embedded schema",
        );
    }
    if overflow {
        report.push(CompatIssue {
            path: field.path.clone(),
            issue: "the type is too large to embed in a Bedrock parameter description".into(),
            mapping: "none: simplify the type".into(),
            blocking: true,
        });
    }
    note(
        report,
        &field.path,
        "Bedrock parameters cannot be objects, unions, files, untyped values or arrays of those",
        "a Bedrock `string` parameter holding the JSON-encoded value; its schema is in the description, and the action-group crate decodes and validates it",
    );
    (BedrockType::String, text)
}

/// `first` and `second` joined as sentences (`second` brings its own punctuation).
fn sentence(first: &str, second: &str) -> String {
    let first = first.trim();
    if first.is_empty() {
        second.to_string()
    } else if first.ends_with(['.', '!', '?', ':']) {
        format!("{first} {second}")
    } else {
        format!("{first}. {second}")
    }
}
