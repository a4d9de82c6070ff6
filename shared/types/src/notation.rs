//! A compact TypeScript-like notation of a type, the last resort for fitting a schema into
//! Bedrock's 500-character parameter descriptions:
//! `{name: string, billing?: Address} where Address = {street: string, city: string}`.

use crate::model::{Body, Field, Object, Shape, Types};
use crate::type_expr::Scalar;
use std::collections::BTreeSet;

/// The shorter of the fully inlined notation and the one naming types in a `where` clause.
pub(crate) fn notation(field: &Field, types: &Types) -> String {
    let inlined = with_where(field, types, true);
    let named = with_where(field, types, false);
    if inlined.chars().count() <= named.chars().count() { inlined } else { named }
}

/// The notation of `field`, followed by `where Name = ...; ...` for the named types used
/// (none when `inline`).
fn with_where(field: &Field, types: &Types, inline: bool) -> String {
    let mut writer = Writer { types, inline, nodes: 0, used: BTreeSet::new(), out: String::new() };
    // A named root is spelled out rather than named.
    match &field.shape {
        Shape::Ref(name) if types.contains_key(name) => {
            if let Some(named) = types.get(name) {
                writer.body(&named.body);
            }
        }
        _ => writer.field(field),
    }
    let mut head = std::mem::take(&mut writer.out);
    let mut done = BTreeSet::new();
    let mut clauses = Vec::new();
    while let Some(name) = writer.used.iter().find(|n| !done.contains(*n)).cloned() {
        done.insert(name.clone());
        let Some(named) = types.get(&name) else { continue };
        writer.body(&named.body);
        clauses.push(format!("{name} = {}", std::mem::take(&mut writer.out)));
    }
    if !clauses.is_empty() {
        head.push_str(" where ");
        head.push_str(&clauses.join("; "));
    }
    head
}

/// Most nodes written before giving up (inlining a DAG of types can grow exponentially).
const BUDGET: usize = 4000;

struct Writer<'a> {
    types: &'a Types,
    inline: bool,
    nodes: usize,
    used: BTreeSet<String>,
    out: String,
}

impl Writer<'_> {
    fn field(&mut self, field: &Field) {
        self.nodes += 1;
        if self.nodes > BUDGET {
            self.out.push_str("...");
            return;
        }
        if let Some(value) = &field.const_value {
            self.out.push_str(&value.to_string());
            return;
        }
        if let Some(values) = &field.enum_values {
            let literals: Vec<String> =
                values.iter().map(|v| serde_json::Value::String(v.clone()).to_string()).collect();
            self.out.push_str(&literals.join("|"));
            return;
        }
        match &field.shape {
            Shape::Scalar(Scalar::Unknown) => self.out.push_str("any"),
            Shape::Scalar(Scalar::File) => self.out.push_str(
                "{id: string, mediaType: string, url: string, filename?: string, size?: number}",
            ),
            Shape::Scalar(scalar) => self.out.push_str(scalar.as_str()),
            Shape::Ref(name) => match self.types.get(name) {
                Some(named) if self.inline => self.body(&named.body),
                Some(_) => {
                    self.used.insert(name.clone());
                    self.out.push_str(name);
                }
                None => self.out.push_str(name),
            },
            Shape::Array(items) => self.array(items),
            Shape::Object(object) => self.object(object),
        }
    }

    /// A named type's definition; union variants are inlined or named like any reference.
    fn body(&mut self, body: &Body) {
        match body {
            Body::Object(object) => self.object(object),
            Body::Array(items) => self.array(items),
            Body::Union { variants, .. } => {
                for (index, variant) in variants.iter().enumerate() {
                    if index > 0 {
                        self.out.push('|');
                    }
                    let variant = Field {
                        shape: Shape::Ref(variant.clone()),
                        description: None,
                        enum_values: None,
                        const_value: None,
                        path: String::new(),
                    };
                    self.field(&variant);
                }
            }
        }
    }

    fn array(&mut self, items: &Field) {
        let outer = std::mem::take(&mut self.out);
        self.field(items);
        let item = std::mem::replace(&mut self.out, outer);
        if item.contains('|') {
            self.out.push('(');
            self.out.push_str(&item);
            self.out.push(')');
        } else {
            self.out.push_str(&item);
        }
        self.out.push_str("[]");
    }

    fn object(&mut self, object: &Object) {
        self.out.push('{');
        for (index, property) in object.properties.iter().enumerate() {
            if index > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(&property.name);
            if !property.required {
                self.out.push('?');
            }
            self.out.push_str(": ");
            self.field(&property.field);
        }
        if object.additional {
            self.out.push_str(if object.properties.is_empty() { "..." } else { ", ..." });
        }
        self.out.push('}');
    }
}
