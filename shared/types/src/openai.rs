//! OpenAI strict function tools, with OpenAI's schema limits checked.

use crate::compile::{CompatIssue, Lowered};
use crate::json_schema::{Options, provider_parameters};
use crate::model::{Body, Field, Object, Shape, Types};
use crate::type_expr::Scalar;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Deepest object nesting OpenAI strict mode accepts.
pub const MAX_OBJECT_DEPTH: usize = 10;
/// Most object properties in one OpenAI strict schema.
pub const MAX_PROPERTIES: usize = 5000;
/// Most enum values in one OpenAI strict schema.
pub const MAX_ENUM_VALUES: usize = 1000;

/// `[{"type":"function","function":{name, description, parameters, strict: true}}]`.
pub(crate) fn compile(lowered: &Lowered) -> (Value, Vec<CompatIssue>) {
    let options = Options { openai: true, ..Options::default() };
    let mut tools = Vec::new();
    let mut report = Vec::new();
    for function in &lowered.functions {
        let (parameters, mut issues) = provider_parameters(lowered, function, options);
        report.append(&mut issues);
        if function.name.len() > 64 {
            report.push(CompatIssue {
                path: format!("{}/name", function.path),
                issue: "OpenAI function names have at most 64 characters".into(),
                mapping: "none: shorten the name".into(),
                blocking: true,
            });
        }
        let mut limits =
            Limits { types: &lowered.types, depth_memo: BTreeMap::new(), properties: 0, enums: 0 };
        let depth = limits.object_depth(&function.parameters);
        limits.count_object(&function.parameters);
        let mut counted = std::collections::BTreeSet::new();
        limits.count_reachable(&function.parameters, &mut counted);
        let checks = [
            (
                depth > MAX_OBJECT_DEPTH,
                format!(
                    "objects nest {depth} levels deep; OpenAI strict mode allows {MAX_OBJECT_DEPTH}"
                ),
            ),
            (
                limits.properties > MAX_PROPERTIES,
                format!(
                    "{} object properties; OpenAI strict mode allows {MAX_PROPERTIES}",
                    limits.properties
                ),
            ),
            (
                limits.enums > MAX_ENUM_VALUES,
                format!(
                    "{} enum values; OpenAI strict mode allows {MAX_ENUM_VALUES}",
                    limits.enums
                ),
            ),
        ];
        for (exceeded, issue) in checks {
            if exceeded {
                report.push(CompatIssue {
                    path: format!("{}/parameters", function.path),
                    issue,
                    mapping: "none: simplify the parameters".into(),
                    blocking: true,
                });
            }
        }
        tools.push(json!({
            "type": "function",
            "function": {
                "name": function.name,
                "description": function.description,
                "parameters": parameters,
                "strict": true,
            }
        }));
    }
    (Value::Array(tools), report)
}

struct Limits<'a> {
    types: &'a Types,
    depth_memo: BTreeMap<&'a str, usize>,
    properties: usize,
    enums: usize,
}

impl<'a> Limits<'a> {
    fn object_depth(&mut self, object: &'a Object) -> usize {
        1 + object.properties.iter().map(|p| self.field_depth(&p.field)).max().unwrap_or(0)
    }

    fn field_depth(&mut self, field: &'a Field) -> usize {
        match &field.shape {
            Shape::Scalar(Scalar::File) => 1,
            Shape::Scalar(_) => 0,
            Shape::Array(items) => self.field_depth(items),
            Shape::Object(object) => self.object_depth(object),
            Shape::Ref(name) => self.named_depth(name),
        }
    }

    fn named_depth(&mut self, name: &'a str) -> usize {
        if let Some(depth) = self.depth_memo.get(name) {
            return *depth;
        }
        let Some(named) = self.types.get(name) else { return 0 };
        let depth = match &named.body {
            Body::Object(object) => self.object_depth(object),
            Body::Array(items) => self.field_depth(items),
            Body::Union { variants, .. } => {
                variants.iter().map(|v| self.named_depth(v)).max().unwrap_or(0)
            }
        };
        self.depth_memo.insert(name, depth);
        depth
    }

    /// Counts properties and enum values of an object and its inline parts (not named types).
    fn count_object(&mut self, object: &Object) {
        self.properties += object.properties.len();
        for property in &object.properties {
            self.count_field(&property.field);
        }
    }

    fn count_field(&mut self, field: &Field) {
        self.enums += field.enum_values.as_ref().map_or(0, Vec::len);
        match &field.shape {
            Shape::Scalar(Scalar::File) => self.properties += 5,
            Shape::Array(items) => self.count_field(items),
            Shape::Object(object) => self.count_object(object),
            _ => {}
        }
    }

    /// Counts each named type reachable from `object` once (they live once in `$defs`).
    fn count_reachable(
        &mut self,
        object: &'a Object,
        counted: &mut std::collections::BTreeSet<&'a str>,
    ) {
        let mut pending: Vec<&'a str> = Vec::new();
        collect_refs_object(object, &mut pending);
        while let Some(name) = pending.pop() {
            if !counted.insert(name) {
                continue;
            }
            let Some(named) = self.types.get(name) else { continue };
            match &named.body {
                Body::Object(object) => {
                    self.count_object(object);
                    collect_refs_object(object, &mut pending);
                }
                Body::Array(items) => {
                    self.count_field(items);
                    collect_refs_field(items, &mut pending);
                }
                Body::Union { variants, .. } => pending.extend(variants.iter().map(String::as_str)),
            }
        }
    }
}

fn collect_refs_object<'a>(object: &'a Object, out: &mut Vec<&'a str>) {
    for property in &object.properties {
        collect_refs_field(&property.field, out);
    }
}

fn collect_refs_field<'a>(field: &'a Field, out: &mut Vec<&'a str>) {
    match &field.shape {
        Shape::Ref(name) => out.push(name),
        Shape::Array(items) => collect_refs_field(items, out),
        Shape::Object(object) => collect_refs_object(object, out),
        Shape::Scalar(_) => {}
    }
}
