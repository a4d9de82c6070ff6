//! JSON Schema (draft 2020-12) emission from the lowered model, with the knobs the
//! provider formats need (inlining, OpenAI strictness, dropping descriptions).

use crate::compile::{CompatIssue, Lowered};
use crate::model::{Body, Field, Function, Object, Shape, Types};
use crate::type_expr::Scalar;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// The draft 2020-12 meta-schema URI.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Most schema nodes an inlined schema may have before emission gives up.
const INLINE_BUDGET: usize = 4000;

/// How to emit.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Options {
    /// Inline named types instead of `$ref` + `$defs`.
    pub(crate) inline: bool,
    /// Leave out descriptions (compact schemas).
    pub(crate) no_descriptions: bool,
    /// OpenAI strict mode: all properties required (optional ones nullable), closed
    /// objects, no `const`, no untyped values.
    pub(crate) openai: bool,
    /// Omit `additionalProperties: false` (compact schemas; the validator still closes objects).
    pub(crate) implicit_closed: bool,
    /// Add `"$schema"` at the root.
    pub(crate) dollar_schema: bool,
}

/// Emits schemas and collects the compatibility report.
pub(crate) struct Emitter<'a> {
    types: &'a Types,
    options: Options,
    used: BTreeSet<String>,
    nodes: usize,
    /// Set when an inlined schema exceeded [`INLINE_BUDGET`].
    pub(crate) overflow: bool,
    pub(crate) report: Vec<CompatIssue>,
}

impl<'a> Emitter<'a> {
    pub(crate) fn new(types: &'a Types, options: Options) -> Self {
        Self {
            types,
            options,
            used: BTreeSet::new(),
            nodes: 0,
            overflow: false,
            report: Vec::new(),
        }
    }

    fn note(&mut self, path: &str, issue: &str, mapping: &str) {
        self.report.push(CompatIssue {
            path: path.to_string(),
            issue: issue.to_string(),
            mapping: mapping.to_string(),
            blocking: false,
        });
    }

    /// The parameters schema of a function (root object, with `$defs` unless inlining).
    pub(crate) fn function(&mut self, function: &Function) -> Value {
        let mut root = self.object(&function.parameters);
        if let Value::Object(map) = &mut root {
            if self.options.dollar_schema {
                map.insert("$schema".into(), Value::String(DRAFT_2020_12.into()));
            }
            if !self.options.inline {
                let defs = self.definitions();
                if !defs.is_empty() {
                    map.insert("$defs".into(), Value::Object(defs));
                }
            }
        }
        root
    }

    /// A standalone schema for one field (Bedrock's JSON-encoded parameters), with
    /// `$defs` unless inlining.
    pub(crate) fn standalone(&mut self, field: &Field) -> Value {
        let root_named = match &field.shape {
            Shape::Ref(name) if !self.options.inline => self.types.get(name),
            _ => None,
        };
        let mut schema = match root_named {
            Some(named) => self.named(named),
            None => self.field(field),
        };
        if !self.options.inline {
            let defs = self.definitions();
            if let (Value::Object(map), false) = (&mut schema, defs.is_empty()) {
                map.insert("$defs".into(), Value::Object(defs));
            }
        }
        schema
    }

    /// Emits every named type referenced so far (and those they reference).
    fn definitions(&mut self) -> Map<String, Value> {
        let mut defs = Map::new();
        let mut done = BTreeSet::new();
        while let Some(name) = self.used.iter().find(|n| !done.contains(*n)).cloned() {
            done.insert(name.clone());
            if let Some(named) = self.types.get(&name) {
                let schema = self.named(named);
                defs.insert(name, schema);
            }
        }
        defs
    }

    fn named(&mut self, named: &crate::model::Named) -> Value {
        let mut schema = match &named.body {
            Body::Object(object) => self.object(object),
            Body::Array(items) => json!({ "type": "array", "items": self.field(items) }),
            Body::Union { variants, .. } => {
                let options: Vec<Value> =
                    variants.iter().map(|variant| self.reference(variant)).collect();
                json!({ "anyOf": options })
            }
        };
        if let (true, Body::Object(object)) = (self.options.openai, &named.body)
            && object.additional
        {
            self.note(
                &named.path,
                "OpenAI strict mode needs closed objects",
                "additionalProperties: true became false",
            );
        }
        self.describe(&mut schema, named.description.as_deref());
        schema
    }

    fn reference(&mut self, name: &str) -> Value {
        if self.options.inline {
            match self.types.get(name) {
                Some(named) => self.named(named),
                None => json!({}),
            }
        } else {
            self.used.insert(name.to_string());
            json!({ "$ref": format!("#/$defs/{name}") })
        }
    }

    fn describe(&self, schema: &mut Value, description: Option<&str>) {
        if let (Value::Object(map), Some(text), false) =
            (schema, description, self.options.no_descriptions)
        {
            map.insert("description".into(), Value::String(text.to_string()));
        }
    }

    fn object(&mut self, object: &Object) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for property in &object.properties {
            let mut schema = self.field(&property.field);
            if self.options.openai {
                if !property.required {
                    schema = nullable(schema);
                    self.note(
                        &property.field.path,
                        "OpenAI strict mode requires every property",
                        "listed as required and nullable: null means absent",
                    );
                }
                required.push(Value::String(property.name.clone()));
            } else if property.required {
                required.push(Value::String(property.name.clone()));
            }
            properties.insert(property.name.clone(), schema);
        }
        let mut map = Map::new();
        map.insert("type".into(), Value::String("object".into()));
        map.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() || self.options.openai {
            map.insert("required".into(), Value::Array(required));
        }
        let additional = object.additional && !self.options.openai;
        if additional || !self.options.implicit_closed {
            map.insert("additionalProperties".into(), Value::Bool(additional));
        }
        Value::Object(map)
    }

    fn field(&mut self, field: &Field) -> Value {
        self.nodes += 1;
        if self.options.inline && self.nodes > INLINE_BUDGET {
            self.overflow = true;
            return json!({});
        }
        let mut schema = match &field.shape {
            Shape::Scalar(scalar) => self.scalar(*scalar, field),
            Shape::Ref(name) => self.reference(name),
            Shape::Array(items) => json!({ "type": "array", "items": self.field(items) }),
            Shape::Object(object) => {
                if self.options.openai && object.additional {
                    self.note(
                        &field.path,
                        "OpenAI strict mode needs closed objects",
                        "additionalProperties: true became false",
                    );
                }
                self.object(object)
            }
        };
        if let Value::Object(map) = &mut schema {
            if let Some(values) = &field.enum_values {
                map.insert(
                    "enum".into(),
                    Value::Array(values.iter().cloned().map(Value::String).collect()),
                );
            }
            if let Some(value) = &field.const_value {
                if self.options.openai {
                    map.insert("enum".into(), Value::Array(vec![value.clone()]));
                    self.note(
                        &field.path,
                        "OpenAI strict mode has no `const`",
                        "a one-value `enum`",
                    );
                } else {
                    map.insert("const".into(), value.clone());
                }
            }
        }
        self.describe(&mut schema, field.description.as_deref());
        schema
    }

    fn scalar(&mut self, scalar: Scalar, field: &Field) -> Value {
        match scalar {
            Scalar::String => json!({ "type": "string" }),
            Scalar::Number => json!({ "type": "number" }),
            Scalar::Integer => json!({ "type": "integer" }),
            Scalar::Boolean => json!({ "type": "boolean" }),
            Scalar::Unknown if self.options.openai => {
                self.note(
                    &field.path,
                    "OpenAI strict mode has no untyped values",
                    "a string holding the JSON-encoded value",
                );
                json!({ "type": "string", "contentMediaType": "application/json" })
            }
            Scalar::Unknown => json!({}),
            Scalar::File => file_schema(self.options),
        }
    }
}

/// The `file` type: `{id, mediaType, url, filename?, size?}`.
fn file_schema(options: Options) -> Value {
    let optional = |ty: &str| {
        if options.openai { json!({ "type": [ty, "null"] }) } else { json!({ "type": ty }) }
    };
    let required: Vec<&str> = if options.openai {
        vec!["id", "mediaType", "url", "filename", "size"]
    } else {
        vec!["id", "mediaType", "url"]
    };
    let mut schema = json!({
        "type": "object",
        "properties": {
            "id": { "type": "string" },
            "mediaType": { "type": "string" },
            "url": { "type": "string" },
            "filename": optional("string"),
            "size": optional("number"),
        },
        "required": required,
    });
    if let (Value::Object(map), false) = (&mut schema, options.implicit_closed) {
        map.insert("additionalProperties".into(), Value::Bool(false));
    }
    schema
}

/// Makes a schema also accept `null` (OpenAI's spelling of an optional property).
fn nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else { return schema };
    if let Some(Value::Array(options)) = map.get_mut("anyOf") {
        options.push(json!({ "type": "null" }));
        return Value::Object(map);
    }
    match map.get("type").cloned() {
        Some(Value::String(ty)) => {
            map.insert("type".into(), json!([ty, "null"]));
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.push(Value::Null);
            }
            Value::Object(map)
        }
        _ => {
            let description = map.remove("description");
            let mut wrapper = Map::new();
            wrapper.insert("anyOf".into(), json!([Value::Object(map), { "type": "null" }]));
            if let Some(description) = description {
                wrapper.insert("description".into(), description);
            }
            Value::Object(wrapper)
        }
    }
}

/// JSON Schema per function: `{"<function name>": schema}`.
pub(crate) fn compile(lowered: &Lowered) -> (Value, Vec<CompatIssue>) {
    let mut out = Map::new();
    let mut report = Vec::new();
    for function in &lowered.functions {
        let mut emitter =
            Emitter::new(&lowered.types, Options { dollar_schema: true, ..Options::default() });
        let mut schema = emitter.function(function);
        if let Value::Object(map) = &mut schema {
            map.insert("title".into(), Value::String(function.name.clone()));
            map.insert("description".into(), Value::String(function.description.clone()));
        }
        report.append(&mut emitter.report);
        out.insert(function.name.clone(), schema);
    }
    (Value::Object(out), report)
}

/// One tool per function, `{name, description, <schema_key>: parameters}`; a name
/// `refuse_name` refuses (the rule and the remedy) is a blocking issue.
pub(crate) fn tools_per_function(
    lowered: &Lowered,
    schema_key: &str,
    refuse_name: impl Fn(&str) -> Option<(String, &'static str)>,
) -> (Value, Vec<CompatIssue>) {
    let mut tools = Vec::new();
    let mut report = Vec::new();
    for function in &lowered.functions {
        let (schema, mut issues) = provider_parameters(lowered, function, Options::default());
        report.append(&mut issues);
        if let Some((issue, mapping)) = refuse_name(&function.name) {
            let path = format!("{}/name", function.path);
            report.push(CompatIssue { path, issue, mapping: mapping.into(), blocking: true });
        }
        tools.push(json!({ "name": function.name, "description": function.description, schema_key: schema }));
    }
    (Value::Array(tools), report)
}

/// The parameters schema of one function for the provider formats (no `$schema`).
pub(crate) fn provider_parameters(
    lowered: &Lowered,
    function: &Function,
    options: Options,
) -> (Value, Vec<CompatIssue>) {
    let mut emitter = Emitter::new(&lowered.types, options);
    let schema = emitter.function(function);
    (schema, emitter.report)
}
