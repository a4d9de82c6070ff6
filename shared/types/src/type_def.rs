//! Wire form of a named type in a tool's `types` map: an object, an array or a union.

use crate::ParameterDefinition;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A named type. Exactly one of `properties` (object type), `items` (array type, with
/// `type: "array"`) or `anyOf` (discriminated union, with `discriminator`) is present.
///
/// Keying objects on an explicit `properties` map keeps a property literally called
/// `type` (as in the reference's `ClickAction`) unambiguous.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TypeDefinition {
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `"object"` (optional on object types) or `"array"` (required on array types).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
    /// Object type: its properties by name (kept byte for byte).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(no_recursion)]
    pub properties: Option<BTreeMap<String, ParameterDefinition>>,
    /// Object type: whether properties not listed are accepted (default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_properties: Option<bool>,
    /// Array type: the element type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(no_recursion)]
    pub items: Option<Box<ParameterDefinition>>,
    /// Union: names of the object types it may be (at least 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub any_of: Option<Vec<String>>,
    /// Union: the property whose `const` value tells the variants apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discriminator: Option<String>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: BTreeMap<String, Value>,
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
