//! Resource properties -> a registry definition.
//!
//! The properties are the definition in its API wire form, in one of two shapes:
//! - the fields themselves (`toolId`, `name`, `functionSchema`, ...). CloudFormation
//!   passes every scalar as a string, so a string is turned back into the number or
//!   boolean the model expects *where the model expects one* (`"30"` -> `30` for
//!   `executionTimeout`, `"true"` -> `true` for `required`); strings stay strings
//!   everywhere else (descriptions, tags, free-form `customData`).
//! - a single `Definition` property holding the definition as a JSON string (for
//!   example `!Sub` or `Fn::ToJsonString` output), parsed strictly (duplicate keys refused).
//!
//! `ServiceToken` and `ServiceTimeout` (CloudFormation's own properties) are dropped.
//! Every problem is a [`Violation`] with the JSON Pointer of the definition field.

use std::collections::HashSet;

use registry_core::{Violation, pointer};
use registry_service::{JsonError, Resource, deserialize, parse_strict};
use serde_json::{Map, Value};

/// CloudFormation's own properties, not part of the definition.
const CLOUDFORMATION_PROPERTIES: [&str; 2] = ["ServiceToken", "ServiceTimeout"];

/// The property holding the whole definition as a JSON string.
pub const DEFINITION_PROPERTY: &str = "Definition";

/// Most string-to-scalar coercions tried on one definition (each at a distinct path).
const MAX_COERCIONS: usize = 512;

/// Parses `properties` into a definition of kind `R`; the id field is required.
pub fn definition<R: Resource>(properties: Option<&Value>) -> Result<R, Vec<Violation>> {
    let document = document(properties)?;
    let definition: R = coerce_and_parse(document)?;
    if definition.id().is_empty() {
        return Err(vec![Violation {
            path: pointer("", R::ID_FIELD),
            message: format!(
                "required by the custom resource: `{}` is the resource's PhysicalResourceId and \
                 must be stable across deployments",
                R::ID_FIELD
            ),
        }]);
    }
    Ok(definition)
}

/// The definition document: the properties minus CloudFormation's, or the parsed
/// `Definition` string.
fn document(properties: Option<&Value>) -> Result<Value, Vec<Violation>> {
    let Some(Value::Object(properties)) = properties else {
        return Err(vec![Violation {
            path: String::new(),
            message: "the resource needs properties: the definition's fields, or `Definition` \
                      holding it as a JSON string"
                .into(),
        }]);
    };
    let mut fields: Map<String, Value> = properties
        .iter()
        .filter(|(k, _)| !CLOUDFORMATION_PROPERTIES.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let Some(embedded) = fields.remove(DEFINITION_PROPERTY) else {
        return Ok(Value::Object(fields));
    };
    let mut violations: Vec<Violation> = fields
        .keys()
        .map(|k| Violation {
            path: pointer("", k),
            message: format!(
                "give either `{DEFINITION_PROPERTY}` or the definition's fields, not both"
            ),
        })
        .collect();
    let parsed = match embedded {
        Value::String(text) => match parse_strict(text.as_bytes()) {
            Ok(value) => Some(value),
            Err(JsonError::DuplicateKey(v)) => {
                violations.push(v);
                None
            }
            Err(e @ JsonError::Syntax(_)) => {
                violations.push(Violation {
                    path: pointer("", DEFINITION_PROPERTY),
                    message: e.to_string(),
                });
                None
            }
        },
        object @ Value::Object(_) => Some(object),
        _ => {
            violations.push(Violation {
                path: pointer("", DEFINITION_PROPERTY),
                message: "must be the definition as a JSON string (or an object)".into(),
            });
            None
        }
    };
    match parsed {
        Some(value) if violations.is_empty() => Ok(value),
        _ => Err(violations),
    }
}

/// Deserializes `document`, turning a string into the number or boolean the model
/// expects wherever a type error says a string was found instead.
fn coerce_and_parse<R: Resource>(mut document: Value) -> Result<R, Vec<Violation>> {
    let mut coerced: HashSet<String> = HashSet::new();
    loop {
        let err = match deserialize::<R>(document.clone()) {
            Ok(definition) => return Ok(definition),
            Err(err) => err,
        };
        let only = &err.violation;
        if !err.string_instead
            || coerced.len() >= MAX_COERCIONS
            || !coerced.insert(only.path.clone())
        {
            return Err(vec![err.violation]);
        }
        let Some(slot) = document.pointer_mut(&only.path) else { return Err(vec![err.violation]) };
        let Some(scalar) = slot.as_str().and_then(scalar) else { return Err(vec![err.violation]) };
        *slot = scalar;
    }
}

/// The boolean or number a CloudFormation string stands for.
fn scalar(text: &str) -> Option<Value> {
    match text {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        _ => {}
    }
    if let Ok(n) = text.parse::<u64>() {
        return Some(n.into());
    }
    if let Ok(n) = text.parse::<i64>() {
        return Some(n.into());
    }
    text.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .and_then(serde_json::Number::from_f64)
        .map(Value::Number)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use registry_core::{AgentDefinition, ToolDefinition};
    use serde_json::json;

    fn tool_properties() -> Value {
        json!({
            "ServiceToken": "arn:aws:lambda:us-east-1:123456789012:function:registry-cr",
            "toolId": "convert_units@1.0.0",
            "executionType": "lambda",
            "name": "convert_units",
            "displayName": "Unit converter",
            "description": "Converts a quantity between units of length, mass, volume and temperature.",
            "supportedAgentFrameworks": ["bedrock"],
            "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:example-tool",
            "executionTimeout": "30",
            "functionSchema": [{
                "name": "convert",
                "description": "Converts a value.",
                "parameters": {
                    "value": {"description": "Quantity", "type": "number", "required": "true"},
                    "from": {"description": "Unit of value", "type": "string", "required": "true"},
                    "to": {"description": "Target unit", "type": "string", "required": "false"}
                }
            }],
            "tags": {"port": "8080", "debug": "true"}
        })
    }

    #[test]
    fn strings_become_numbers_and_booleans_only_where_the_model_wants_them() {
        let tool: ToolDefinition = definition(Some(&tool_properties())).unwrap();
        let back = serde_json::to_value(&tool).unwrap();
        assert_eq!(back["executionTimeout"], 30);
        assert_eq!(back["functionSchema"][0]["parameters"]["value"]["required"], true);
        assert_eq!(back["functionSchema"][0]["parameters"]["to"]["required"], false);
        assert_eq!(back["tags"]["port"], "8080", "tags stay strings");
        assert_eq!(back["tags"]["debug"], "true");
        assert!(back.get("ServiceToken").is_none());
    }

    #[test]
    fn a_string_that_is_not_the_expected_scalar_is_reported_at_its_path() {
        let mut p = tool_properties();
        p["executionTimeout"] = json!("soon");
        let err = definition::<ToolDefinition>(Some(&p)).unwrap_err();
        assert_eq!(err[0].path, "/executionTimeout", "{err:?}");
    }

    #[test]
    fn the_definition_property_holds_json_text() {
        let mut inner = tool_properties();
        inner.as_object_mut().unwrap().remove("ServiceToken");
        let p = json!({"ServiceToken": "arn", "Definition": inner.to_string()});
        let tool: ToolDefinition = definition(Some(&p)).unwrap();
        assert_eq!(tool.tool_id, "convert_units@1.0.0");
    }

    #[test]
    fn duplicate_keys_in_the_definition_text_are_refused_at_their_pointer() {
        let text = r#"{"agentId": "a", "basePrompt": "x", "basePrompt": "y", "toolIds": []}"#;
        let err = definition::<AgentDefinition>(Some(&json!({"Definition": text}))).unwrap_err();
        assert_eq!(err[0].path, "/basePrompt", "{err:?}");
    }

    #[test]
    fn definition_and_fields_together_are_refused_naming_each_field() {
        let p = json!({"Definition": "{}", "agentId": "a"});
        let err = definition::<AgentDefinition>(Some(&p)).unwrap_err();
        assert_eq!(err[0].path, "/agentId", "{err:?}");
    }

    #[test]
    fn the_id_is_required() {
        let mut p = tool_properties();
        p.as_object_mut().unwrap().remove("toolId");
        let err = definition::<ToolDefinition>(Some(&p)).unwrap_err();
        assert_eq!(err[0].path, "/toolId", "{err:?}");
        let err = definition::<ToolDefinition>(None).unwrap_err();
        assert_eq!(err[0].path, "", "{err:?}");
    }

    #[test]
    fn scalars() {
        assert_eq!(scalar("42"), Some(json!(42)));
        assert_eq!(scalar("-3"), Some(json!(-3)));
        assert_eq!(scalar("0.25"), Some(json!(0.25)));
        assert_eq!(scalar("NaN"), None);
        assert_eq!(scalar("yes"), None);
    }
}
