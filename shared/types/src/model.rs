//! The normalized type tree that compilers and the argument validator walk, lowered from
//! the (already validated) wire form; every node keeps the JSON Pointer it came from.

use crate::Confirmation;
use crate::pointer::pointer;
use crate::type_def::TypeKind;
use crate::type_expr::{Base, Scalar, TypeExpr, parse};
use crate::{FunctionDefinition, ParameterDefinition, TypeDefinition};
use serde_json::Value;
use std::collections::BTreeMap;

/// The structural part of a field.
#[derive(Debug, Clone)]
pub(crate) enum Shape {
    Scalar(Scalar),
    /// A named type.
    Ref(String),
    Array(Box<Field>),
    Object(Object),
}

/// A value slot: a parameter, a property, array items.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    pub(crate) shape: Shape,
    pub(crate) description: Option<String>,
    pub(crate) enum_values: Option<Vec<String>>,
    pub(crate) const_value: Option<Value>,
    /// Where the field is defined, from the tool root.
    pub(crate) path: String,
}

/// One property of an object.
#[derive(Debug, Clone)]
pub(crate) struct Property {
    pub(crate) name: String,
    pub(crate) field: Field,
    pub(crate) required: bool,
}

/// An object with its properties in key order.
#[derive(Debug, Clone)]
pub(crate) struct Object {
    pub(crate) properties: Vec<Property>,
    pub(crate) additional: bool,
}

/// The body of a named type.
#[derive(Debug, Clone)]
pub(crate) enum Body {
    Object(Object),
    Array(Field),
    Union { variants: Vec<String>, discriminator: String },
}

/// A named type.
#[derive(Debug, Clone)]
pub(crate) struct Named {
    pub(crate) description: Option<String>,
    pub(crate) body: Body,
    pub(crate) path: String,
}

/// A function: its parameters form the root object.
#[derive(Debug, Clone)]
pub(crate) struct Function {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) parameters: Object,
    pub(crate) confirmation: Option<Confirmation>,
    pub(crate) path: String,
}

/// All named types of a tool.
pub(crate) type Types = BTreeMap<String, Named>;

/// Lowers a tool's named types.
pub(crate) fn lower_types(types: Option<&BTreeMap<String, TypeDefinition>>) -> Types {
    types
        .into_iter()
        .flatten()
        .map(|(name, def)| (name.clone(), lower_named(&pointer("/types", name), def)))
        .collect()
}

/// Lowers the function at `index` of `functionSchema`.
pub(crate) fn lower_function(index: usize, function: &FunctionDefinition) -> Function {
    let path = format!("/functionSchema/{index}");
    Function {
        name: function.name.clone(),
        description: function.description.clone(),
        parameters: lower_object(&function.parameters, &pointer(&path, "parameters"), false),
        confirmation: function.require_confirmation,
        path,
    }
}

fn lower_named(path: &str, def: &TypeDefinition) -> Named {
    let body = match def.kind() {
        Some(TypeKind::Array) => Body::Array(match &def.items {
            Some(items) => lower_field(items, &pointer(path, "items")),
            None => unknown_field(pointer(path, "items")),
        }),
        Some(TypeKind::Union) => Body::Union {
            variants: def.any_of.clone().unwrap_or_default(),
            discriminator: def.discriminator.clone().unwrap_or_default(),
        },
        _ => Body::Object(lower_object(
            def.properties.as_ref().unwrap_or(&BTreeMap::new()),
            &pointer(path, "properties"),
            def.additional_properties.unwrap_or(false),
        )),
    };
    Named { description: non_empty(def.description.as_deref()), body, path: path.to_string() }
}

/// `properties_path` is the path of the properties map.
fn lower_object(
    properties: &BTreeMap<String, ParameterDefinition>,
    properties_path: &str,
    additional: bool,
) -> Object {
    Object {
        properties: properties
            .iter()
            .map(|(name, p)| Property {
                name: name.clone(),
                field: lower_field(p, &pointer(properties_path, name)),
                required: p.is_required(),
            })
            .collect(),
        additional,
    }
}

fn unknown_field(path: String) -> Field {
    Field {
        shape: Shape::Scalar(Scalar::Unknown),
        description: None,
        enum_values: None,
        const_value: None,
        path,
    }
}

fn lower_field(p: &ParameterDefinition, path: &str) -> Field {
    let Some(TypeExpr { base, dims }) = parse(&p.ty) else {
        return unknown_field(path.to_string());
    };
    let innermost = match base {
        Base::Scalar(scalar) => Shape::Scalar(scalar),
        Base::Named(name) => Shape::Ref(name.to_string()),
        Base::Object => Shape::Object(lower_object(
            p.properties.as_ref().unwrap_or(&BTreeMap::new()),
            &pointer(path, "properties"),
            p.additional_properties.unwrap_or(false),
        )),
        Base::Array => Shape::Array(Box::new(match &p.items {
            Some(items) => lower_field(items, &pointer(path, "items")),
            None => unknown_field(pointer(path, "items")),
        })),
    };
    let mut shape = innermost;
    for _ in 0..dims {
        let element = Field {
            shape,
            description: None,
            enum_values: None,
            const_value: None,
            path: path.to_string(),
        };
        shape = Shape::Array(Box::new(element));
    }
    let (enum_values, const_value) = if dims == 0 {
        let enum_values = p
            .enum_values
            .as_ref()
            .map(|values| values.iter().filter_map(|v| v.as_str().map(str::to_string)).collect());
        (enum_values, p.const_value.clone())
    } else {
        (None, None)
    };
    Field {
        shape,
        description: non_empty(Some(&p.description)),
        enum_values,
        const_value,
        path: path.to_string(),
    }
}

fn non_empty(text: Option<&str>) -> Option<String> {
    text.map(str::trim).filter(|t| !t.is_empty()).map(str::to_string)
}
