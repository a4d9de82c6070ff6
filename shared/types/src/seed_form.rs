//! Loading a named type written in either form: with a `properties` member, or with its
//! properties directly under the type name as the seed type language writes them
//! (`CartItem: { productId: {type: string}, quantity: {type: integer} }`).
//!
//! The rule, unambiguous by construction:
//! - a type with a `properties` member is in the wrapped form: every other key must be a
//!   keyword (anything else is an unknown field, named by validation);
//! - otherwise a key is a keyword when it is one (`type`, `description`, `items`,
//!   `additionalProperties`, `anyOf`, `discriminator`) and its value is not an object,
//!   and a property when its value is an object. So a property literally named `type`
//!   or `description` is written as an object and told apart;
//! - `items` is the array keyword when the type says `type: array`, else a property.
//!
//! Properties are read straight from the input, so type errors inside them keep their
//! JSON Pointer (`/types/CartItem/quantity/type`).

use crate::ParameterDefinition;
use crate::type_def::{Form, TypeDefinition};
use serde::Deserialize;
use serde::de::Error as _;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

impl<'de> Deserialize<'de> for TypeDefinition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(TypeVisitor)
    }
}

struct TypeVisitor;

impl<'de> Visitor<'de> for TypeVisitor {
    type Value = TypeDefinition;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a type: an object of properties, or `type: array` with `items`, or `anyOf`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TypeDefinition, A::Error> {
        let mut out = TypeDefinition::default();
        let mut items: Option<ParameterDefinition> = None;
        let mut inline = BTreeMap::new();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "properties" => out.properties = Some(map.next_value()?),
                "items" => items = Some(map.next_value()?),
                _ => match map.next_value::<Entry>()? {
                    Entry::Property(property) => {
                        inline.insert(key, property);
                    }
                    Entry::Value(value) => keyword(&mut out, key, value)?,
                },
            }
        }
        let is_array = out.ty.as_deref() == Some("array");
        match (out.properties.is_some(), is_array) {
            // Keys written beside `properties` are not properties: validation names them.
            (true, _) => {
                for (key, property) in inline {
                    out.unknown
                        .insert(key, serde_json::to_value(property).map_err(A::Error::custom)?);
                }
                out.items = items.map(Box::new);
            }
            (false, true) => {
                out.items = items.map(Box::new);
                out.properties = Some(inline).filter(|p| !p.is_empty());
            }
            (false, false) => {
                if let Some(items) = items {
                    inline.insert("items".into(), items);
                }
                if !inline.is_empty() {
                    out.properties = Some(inline);
                    out.form = Form::Seed;
                }
            }
        }
        Ok(out)
    }
}

/// Sets the keyword `key` from a non-object `value`; a name that is no keyword is kept
/// as an unknown field for validation to name.
fn keyword<E: de::Error>(out: &mut TypeDefinition, key: String, value: Value) -> Result<(), E> {
    fn parse<T: serde::de::DeserializeOwned, E: de::Error>(
        key: &str,
        value: Value,
    ) -> Result<T, E> {
        serde_json::from_value(value).map_err(|e| E::custom(format!("`{key}`: {e}")))
    }
    match key.as_str() {
        "description" => out.description = parse(&key, value)?,
        "type" => out.ty = parse(&key, value)?,
        "additionalProperties" => out.additional_properties = parse(&key, value)?,
        "anyOf" => out.any_of = parse(&key, value)?,
        "discriminator" => out.discriminator = parse(&key, value)?,
        _ => {
            out.unknown.insert(key, value);
        }
    }
    Ok(())
}

/// The value of a key other than `properties` and `items`: an object is a property
/// (read in place, so errors inside it keep their path), anything else a plain value.
enum Entry {
    Property(ParameterDefinition),
    Value(Value),
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(EntryVisitor)
    }
}

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property (an object) or a keyword's value")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Entry, A::Error> {
        ParameterDefinition::deserialize(de::value::MapAccessDeserializer::new(map))
            .map(Entry::Property)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Entry, A::Error> {
        Vec::<Value>::deserialize(de::value::SeqAccessDeserializer::new(seq))
            .map(|v| Entry::Value(Value::Array(v)))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Entry, E> {
        Ok(Entry::Value(v.into()))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Entry, E> {
        Ok(Entry::Value(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Entry, E> {
        Ok(Entry::Value(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Entry, E> {
        Ok(Entry::Value(v.into()))
    }
    fn visit_str<E>(self, v: &str) -> Result<Entry, E> {
        Ok(Entry::Value(v.into()))
    }
    fn visit_string<E>(self, v: String) -> Result<Entry, E> {
        Ok(Entry::Value(v.into()))
    }
    fn visit_unit<E>(self) -> Result<Entry, E> {
        Ok(Entry::Value(Value::Null))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn load(value: Value) -> TypeDefinition {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn both_forms_load_to_the_same_type() {
        let seed = load(json!({
            "description": "An item",
            "productId": {"type": "string"},
            "quantity": {"type": "integer", "description": "1-10"}
        }));
        let wrapped = load(json!({
            "description": "An item",
            "properties": {"productId": {"type": "string"}, "quantity": {"type": "integer", "description": "1-10"}}
        }));
        assert_eq!(seed, wrapped);
        assert!(matches!(seed.form, Form::Seed));
        assert_eq!(serde_json::to_value(&seed).unwrap(), serde_json::to_value(&wrapped).unwrap());
        assert_eq!(seed.properties_path("/types/CartItem"), "/types/CartItem");
        assert_eq!(wrapped.properties_path("/types/CartItem"), "/types/CartItem/properties");
    }

    #[test]
    fn keywords_with_object_values_are_properties() {
        let click = load(json!({
            "type": {"type": "string", "const": "click"},
            "description": {"type": "string"},
            "x": {"type": "integer"}
        }));
        let props = click.properties.unwrap();
        assert_eq!(props.keys().collect::<Vec<_>>(), ["description", "type", "x"]);
        assert_eq!(click.ty, None);
        assert_eq!(click.description, None);
    }

    #[test]
    fn items_is_the_array_keyword_only_on_array_types() {
        let list =
            load(json!({"type": "array", "items": {"type": "CartItem"}, "description": "Items"}));
        assert_eq!(list.items.unwrap().ty, "CartItem");
        assert!(list.properties.is_none());
        let cart = load(json!({
            "items": {"type": "array", "items": {"type": "CartItem"}},
            "tags": {"type": "array", "items": {"type": "string"}}
        }));
        assert!(cart.items.is_none());
        assert_eq!(cart.properties.unwrap().keys().collect::<Vec<_>>(), ["items", "tags"]);
    }

    #[test]
    fn beside_properties_other_keys_are_unknown_fields() {
        let mixed = load(
            json!({"properties": {"a": {"type": "string"}}, "b": {"type": "string"}, "descripton": "x"}),
        );
        assert_eq!(mixed.properties.unwrap().len(), 1);
        assert_eq!(mixed.unknown.keys().collect::<Vec<_>>(), ["b", "descripton"]);
    }

    #[test]
    fn errors_inside_seed_properties_keep_their_path() {
        let path_of = |value: Value| {
            serde_path_to_error::deserialize::<_, TypeDefinition>(value)
                .unwrap_err()
                .path()
                .to_string()
        };
        assert_eq!(path_of(json!({"quantity": {"type": 5}})), "quantity.type");
        assert_eq!(path_of(json!({"type": {"enum": 5}})), "type.enum");
        // a scalar under a name that is no keyword is an unknown field, in either form
        let typo = load(json!({"descripton": "x", "a": {"type": "string"}}));
        assert_eq!(typo.unknown.keys().collect::<Vec<_>>(), ["descripton"]);
    }
}
