//! Wire form of a named type in a tool's `types` map: an object, an array or a union.

use crate::ParameterDefinition;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A named type. Exactly one of `properties` (object type), `items` (array type, with
/// `type: "array"`) or `anyOf` (discriminated union, with `discriminator`) is present.
///
/// Object types load in two forms (see `seed_form.rs`): with a `properties` member, or,
/// as in the seed type language, with the properties directly under the type name. It
/// is always written back with `properties`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TypeDefinition {
    /// Human-readable description.
    pub description: Option<String>,
    /// `"object"` (optional on object types) or `"array"` (required on array types).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
    /// Object type: its properties by name (kept byte for byte).
    #[schema(no_recursion)]
    pub properties: Option<BTreeMap<String, ParameterDefinition>>,
    /// Object type: whether properties not listed are accepted (default `false`).
    pub additional_properties: Option<bool>,
    /// Array type: the element type.
    #[schema(no_recursion)]
    pub items: Option<Box<ParameterDefinition>>,
    /// Union: names of the object types it may be (at least 2).
    pub any_of: Option<Vec<String>>,
    /// Union: the property whose `const` value tells the variants apart.
    pub discriminator: Option<String>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: BTreeMap<String, Value>,
    /// How the properties were written, so violations point where the user wrote them.
    #[serde(skip)]
    #[schema(ignore)]
    pub form: Form,
}

/// How an object type's properties were written; never part of its content.
#[derive(Debug, Clone, Copy, Default)]
pub enum Form {
    /// Inside a `properties` member (or not an object type).
    #[default]
    Wrapped,
    /// Directly under the type name, as in the seed type language.
    Seed,
}

/// Every form is equal: the form is how a type was written, not what it is.
impl PartialEq for Form {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Which of the three kinds a [`TypeDefinition`] is, as decided by its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeKind {
    /// Has `properties`.
    Object,
    /// Has `items` (and `type: "array"`).
    Array,
    /// Has `anyOf`.
    Union,
}

impl TypeDefinition {
    /// JSON Pointer of the properties of this type at `path`, in the form it was written.
    pub fn properties_path(&self, path: &str) -> String {
        match self.form {
            Form::Wrapped => crate::pointer::pointer(path, "properties"),
            Form::Seed => path.to_owned(),
        }
    }

    /// The kinds its fields claim; well-formed types claim exactly one.
    pub fn kinds(&self) -> Vec<TypeKind> {
        let mut kinds = Vec::new();
        if self.properties.is_some() {
            kinds.push(TypeKind::Object);
        }
        if self.items.is_some() || self.ty.as_deref() == Some("array") {
            kinds.push(TypeKind::Array);
        }
        if self.any_of.is_some() {
            kinds.push(TypeKind::Union);
        }
        kinds
    }

    /// The single kind, when exactly one is claimed.
    pub fn kind(&self) -> Option<TypeKind> {
        match self.kinds().as_slice() {
            [kind] => Some(*kind),
            _ => None,
        }
    }
}
