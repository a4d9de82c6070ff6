//! Typed extraction of converted arguments into a user `serde::Deserialize` type.
//!
//! Errors carry the JSON pointer of the failing field (via `serde_path_to_error`).
//! A top-level parameter that arrives as a string but whose target is a struct, map,
//! sequence or data enum is decoded from JSON first: that is how rich parameters travel
//! through Bedrock, whose function details only declare scalar and array types.

use serde::de::value::MapDeserializer;
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

use crate::invalid::{ArgumentError, pointer};

/// Deserializes `T` from an arguments object, naming the failing field on error.
pub(crate) fn extract<T: DeserializeOwned>(args: &Map<String, Value>) -> Result<T, ArgumentError> {
    // Fast path without path tracking; on failure, deserialize again to locate the error.
    if let Ok(value) = T::deserialize(ArgsDe(args)) {
        return Ok(value);
    }
    serde_path_to_error::deserialize(ArgsDe(args)).map_err(|e| {
        let segments: Vec<String> = e
            .path()
            .iter()
            .filter_map(|s| match s {
                serde_path_to_error::Segment::Seq { index } => Some(index.to_string()),
                serde_path_to_error::Segment::Map { key } => Some(key.clone()),
                serde_path_to_error::Segment::Enum { variant } => Some(variant.clone()),
                serde_path_to_error::Segment::Unknown => None,
            })
            .collect();
        let message = e.inner().to_string();
        field_error(segments, &message)
    })
}

/// Moves the field named in serde's "missing field" / "unknown field" messages into the pointer.
fn field_error(mut segments: Vec<String>, message: &str) -> ArgumentError {
    let named = |prefix: &str| -> Option<(String, String)> {
        let rest = message.strip_prefix(prefix)?;
        let end = rest.find('`')?;
        Some((rest[..end].to_string(), rest[end + 1..].trim_start_matches(", ").to_string()))
    };
    if let Some((field, _)) = named("missing field `") {
        segments.push(field);
        return ArgumentError::at(pointer(&segments), "is required");
    }
    if let Some((field, rest)) = named("unknown field `") {
        // serde_path_to_error already ends the path with the unknown key.
        if segments.last() != Some(&field) {
            segments.push(field);
        }
        let message = if rest.is_empty() {
            "is not known".to_string()
        } else {
            format!("is not known; {rest}")
        };
        return ArgumentError::at(pointer(&segments), message);
    }
    ArgumentError::at(pointer(&segments), message)
}

/// The arguments object as a map deserializer whose values decode JSON strings on demand.
struct ArgsDe<'a>(&'a Map<String, Value>);

impl<'de> de::Deserializer<'de> for ArgsDe<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let mut map = MapDeserializer::new(self.0.iter().map(|(k, v)| (k.as_str(), ParamDe(v))));
        let value = visitor.visit_map(&mut map)?;
        map.end()?;
        Ok(value)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// One top-level parameter value.
#[derive(Clone, Copy)]
struct ParamDe<'a>(&'a Value);

impl<'a> ParamDe<'a> {
    /// The JSON a string parameter holds, when it holds a container (`accept` says which).
    fn decoded(&self, accept: fn(&Value) -> bool) -> Result<Option<Value>, serde_json::Error> {
        let Value::String(s) = self.0 else { return Ok(None) };
        let t = s.trim_start();
        if !(t.starts_with('{') || t.starts_with('[')) {
            return Ok(None);
        }
        match serde_json::from_str::<Value>(s) {
            Ok(v) if accept(&v) => Ok(Some(v)),
            Ok(_) => Ok(None),
            Err(e) => Err(de::Error::custom(format!("expected JSON, got invalid JSON text ({e})"))),
        }
    }
}

impl<'de> IntoDeserializer<'de, serde_json::Error> for ParamDe<'de> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

fn is_container(v: &Value) -> bool {
    v.is_object() || v.is_array()
}

macro_rules! forward_to_value {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
                de::Deserializer::$method(self.0, visitor)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for ParamDe<'de> {
    type Error = serde_json::Error;

    forward_to_value! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_unit deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        de::Deserializer::deserialize_unit_struct(self.0, name, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.decoded(is_container)? {
            Some(v) => de::Deserializer::deserialize_seq(v, visitor),
            None => de::Deserializer::deserialize_seq(self.0, visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.decoded(is_container)? {
            Some(v) => de::Deserializer::deserialize_tuple(v, len, visitor),
            None => de::Deserializer::deserialize_tuple(self.0, len, visitor),
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.decoded(is_container)? {
            Some(v) => de::Deserializer::deserialize_tuple_struct(v, name, len, visitor),
            None => de::Deserializer::deserialize_tuple_struct(self.0, name, len, visitor),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.decoded(is_container)? {
            Some(v) => de::Deserializer::deserialize_map(v, visitor),
            None => de::Deserializer::deserialize_map(self.0, visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.decoded(is_container)? {
            Some(v) => de::Deserializer::deserialize_struct(v, name, fields, visitor),
            None => de::Deserializer::deserialize_struct(self.0, name, fields, visitor),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.decoded(Value::is_object)? {
            Some(v) => de::Deserializer::deserialize_enum(v, name, variants, visitor),
            None => de::Deserializer::deserialize_enum(self.0, name, variants, visitor),
        }
    }
}
