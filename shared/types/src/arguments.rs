//! Validation of a tool call's arguments (decoded JSON) against a function's types, and
//! decoding of Bedrock's string parameters into such arguments.

use crate::bedrock::{BedrockEncoding, encoding};
use crate::bedrock_value::{BedrockValueError, decode_bedrock_value};
use crate::model::{Body, Field, Object, Shape, Types, lower_function, lower_types};
use crate::pointer::{PointerPath, pointer};
use crate::type_expr::Scalar;
use crate::validate::{is_integer, scalar_accepts, type_errors};
use crate::{FunctionDefinition, SchemaError, TypeDefinition};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One function's parameters, checked and lowered once, to check any number of calls
/// against (what [`validate_arguments`] and [`decode_bedrock_arguments`] do per call).
#[derive(Debug, Clone)]
pub struct ArgumentSchema {
    types: Types,
    parameters: Object,
}

impl ArgumentSchema {
    /// `function`'s parameters with the tool's `types`; `Err` when the schema itself is
    /// invalid (then no call can be checked against it).
    pub fn new(
        function: &FunctionDefinition,
        types: Option<&BTreeMap<String, TypeDefinition>>,
    ) -> Result<Self, SchemaError> {
        let schema_errors = type_errors(function, types);
        if let Some(first) = schema_errors.first() {
            return Err(SchemaError::new(
                "",
                format!(
                    "the tool's schema is invalid ({} problems, first: {first}); arguments cannot be checked",
                    schema_errors.len()
                ),
            ));
        }
        Ok(Self { types: lower_types(types), parameters: lower_function(0, function).parameters })
    }

    /// Every violation in `args` (an object of parameter name to value), with paths
    /// relative to it (e.g. `/cartItems/0/quantity`). Empty means valid.
    pub fn check(&self, args: &Value) -> Vec<SchemaError> {
        let mut checker = Checker { types: &self.types, errors: Vec::new() };
        checker.object(&self.parameters, args, PointerPath::Root);
        checker.errors
    }

    /// How parameter `name` travels through Bedrock, when the function has it.
    pub fn encoding(&self, name: &str) -> Option<BedrockEncoding> {
        let property = self.parameters.properties.iter().find(|p| p.name == name)?;
        Some(encoding(&property.field))
    }

    /// How each parameter travels through Bedrock, in name order.
    pub fn encodings(&self) -> impl Iterator<Item = (&str, BedrockEncoding)> {
        self.parameters.properties.iter().map(|p| (p.name.as_str(), encoding(&p.field)))
    }

    /// Turns Bedrock's `(name, value)` string parameters into a checked arguments object
    /// (see [`decode_bedrock_arguments`]).
    pub fn decode<'a>(
        &self,
        parameters: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Value, Vec<SchemaError>> {
        let mut args = Map::new();
        let mut errors = Vec::new();
        for (name, text) in parameters {
            let Some(encoding) = self.encoding(name) else {
                errors.push(SchemaError::new(pointer("", name), "unknown parameter"));
                continue;
            };
            match decode(encoding, text) {
                Ok(value) => {
                    if args.insert(name.to_string(), value).is_some() {
                        errors.push(SchemaError::new(
                            pointer("", name),
                            "parameter given more than once",
                        ));
                    }
                }
                Err(error) => errors.push(SchemaError::new(pointer("", name), error.to_string())),
            }
        }
        let args = Value::Object(args);
        let mut violations = self.check(&args);
        // A parameter that failed to decode is absent: drop the "required" noise for it.
        violations.retain(|v| !errors.iter().any(|e| e.path == v.path));
        errors.append(&mut violations);
        if errors.is_empty() { Ok(args) } else { Err(errors) }
    }
}

/// Checks a call's arguments (an object of parameter name to value) against `function`
/// and the tool's `types`; returns every violation, with paths relative to the arguments
/// object (e.g. `/cartItems/0/quantity`). Empty means valid.
pub fn validate_arguments(
    function: &FunctionDefinition,
    types: Option<&BTreeMap<String, TypeDefinition>>,
    args: &Value,
) -> Vec<SchemaError> {
    match ArgumentSchema::new(function, types) {
        Ok(schema) => schema.check(args),
        Err(invalid) => vec![invalid],
    }
}

/// Turns Bedrock's `(name, value)` string parameters into an arguments object for
/// `function`: native parameters are converted strictly, JSON-encoded ones (see
/// [`crate::bedrock_parameter_encodings`]) are decoded; the result is then checked with
/// [`validate_arguments`]. `Err` lists every problem (paths relative to the arguments).
pub fn decode_bedrock_arguments<'a>(
    function: &FunctionDefinition,
    types: Option<&BTreeMap<String, TypeDefinition>>,
    parameters: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<Value, Vec<SchemaError>> {
    ArgumentSchema::new(function, types).map_err(|invalid| vec![invalid])?.decode(parameters)
}

/// One parameter by its Bedrock encoding, through [`decode_bedrock_value`]: native
/// parameters by their Bedrock type, JSON-encoded ones as JSON text.
fn decode(encoding: BedrockEncoding, text: &str) -> Result<Value, BedrockValueError> {
    match encoding {
        BedrockEncoding::String => decode_bedrock_value("string", text),
        BedrockEncoding::Integer => decode_bedrock_value("integer", text),
        BedrockEncoding::Number => decode_bedrock_value("number", text),
        BedrockEncoding::Boolean => decode_bedrock_value("boolean", text),
        BedrockEncoding::JsonArray => decode_bedrock_value("array", text),
        BedrockEncoding::Json => {
            serde_json::from_str(text).map_err(|e| BedrockValueError::NotJson(e.to_string()))
        }
    }
}

struct Checker<'a> {
    types: &'a Types,
    errors: Vec<SchemaError>,
}

impl Checker<'_> {
    fn push(&mut self, at: PointerPath<'_>, message: impl Into<String>) {
        self.errors.push(SchemaError::new(at.pointer(), message));
    }

    fn object(&mut self, object: &Object, value: &Value, path: PointerPath<'_>) {
        let Value::Object(map) = value else {
            self.push(path, format!("expected an object, found {}", kind(value)));
            return;
        };
        for property in &object.properties {
            let property_path = PointerPath::Key(&path, &property.name);
            match map.get(&property.name) {
                Some(item) => self.field(&property.field, item, property_path),
                None if property.required => self.push(property_path, "required"),
                None => {}
            }
        }
        if !object.additional {
            for key in map.keys() {
                if !object.properties.iter().any(|p| &p.name == key) {
                    self.push(PointerPath::Key(&path, key), "unknown property: not in the schema");
                }
            }
        }
    }

    fn field(&mut self, field: &Field, value: &Value, path: PointerPath<'_>) {
        match &field.shape {
            Shape::Scalar(Scalar::File) => self.file(value, path),
            Shape::Scalar(scalar) => {
                if !scalar_accepts(*scalar, value) {
                    let expected = match scalar {
                        Scalar::String => "a string",
                        Scalar::Number => "a number",
                        Scalar::Integer => "an integer",
                        _ => "true or false",
                    };
                    self.push(path, format!("expected {expected}, found {}", kind(value)));
                    return;
                }
            }
            Shape::Ref(name) => self.named(name, value, path),
            Shape::Array(items) => self.array(items, value, path),
            Shape::Object(object) => self.object(object, value, path),
        }
        if let (Some(values), Some(text)) = (&field.enum_values, value.as_str())
            && !values.iter().any(|v| v == text)
        {
            self.push(path, format!("must be one of: {}", values.join(", ")));
        }
        if let Some(expected) = &field.const_value
            && !same_value(expected, value)
        {
            self.push(path, format!("must be {expected}"));
        }
    }

    fn array(&mut self, items: &Field, value: &Value, path: PointerPath<'_>) {
        match value {
            Value::Array(elements) => {
                for (index, element) in elements.iter().enumerate() {
                    self.field(items, element, PointerPath::Index(&path, index));
                }
            }
            _ => self.push(path, format!("expected an array, found {}", kind(value))),
        }
    }

    fn named(&mut self, name: &str, value: &Value, path: PointerPath<'_>) {
        let Some(named) = self.types.get(name) else {
            self.push(path, format!("type `{name}` is not defined"));
            return;
        };
        match &named.body {
            Body::Object(object) => self.object(object, value, path),
            Body::Array(items) => self.array(items, value, path),
            Body::Union { variants, discriminator } => {
                self.union(variants, discriminator, value, path)
            }
        }
    }

    fn union(
        &mut self,
        variants: &[String],
        discriminator: &str,
        value: &Value,
        path: PointerPath<'_>,
    ) {
        let Value::Object(map) = value else {
            self.push(path, format!("expected an object, found {}", kind(value)));
            return;
        };
        let tags: Vec<(&str, &Value)> = variants
            .iter()
            .filter_map(|variant| {
                let Some(Body::Object(object)) = self.types.get(variant).map(|n| &n.body) else {
                    return None;
                };
                let property = object.properties.iter().find(|p| p.name == discriminator)?;
                Some((variant.as_str(), property.field.const_value.as_ref()?))
            })
            .collect();
        let allowed = || tags.iter().map(|(_, v)| v.to_string()).collect::<Vec<_>>().join(", ");
        let tag_path = PointerPath::Key(&path, discriminator);
        let Some(tag) = map.get(discriminator) else {
            self.push(tag_path, format!("required: the discriminator, one of {}", allowed()));
            return;
        };
        match tags.iter().find(|(_, v)| same_value(v, tag)) {
            Some((variant, _)) => self.named(variant, value, path),
            None => self.push(tag_path, format!("must be one of {}", allowed())),
        }
    }

    fn file(&mut self, value: &Value, path: PointerPath<'_>) {
        let Value::Object(map) = value else {
            self.push(path, format!("expected a file reference object, found {}", kind(value)));
            return;
        };
        for key in ["id", "mediaType", "url"] {
            match map.get(key) {
                Some(Value::String(_)) => {}
                Some(other) => self.push(
                    PointerPath::Key(&path, key),
                    format!("expected a string, found {}", kind(other)),
                ),
                None => self.push(PointerPath::Key(&path, key), "required"),
            }
        }
        if let Some(filename) = map.get("filename").filter(|v| !v.is_string()) {
            self.push(
                PointerPath::Key(&path, "filename"),
                format!("expected a string, found {}", kind(filename)),
            );
        }
        if let Some(size) = map.get("size").filter(|v| !v.is_number()) {
            self.push(
                PointerPath::Key(&path, "size"),
                format!("expected a number, found {}", kind(size)),
            );
        }
        for key in map.keys() {
            if !["id", "mediaType", "url", "filename", "size"].contains(&key.as_str()) {
                self.push(
                    PointerPath::Key(&path, key),
                    "unknown property: a file reference has id, mediaType, url, filename, size",
                );
            }
        }
    }
}

/// JSON equality where numbers compare by value (`1` equals `1.0`, as in JSON Schema).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else {
                x.as_f64() == y.as_f64()
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) if is_integer(value) => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
