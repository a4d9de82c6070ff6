//! Typed extraction of converted arguments into a user `serde::Deserialize` type.
//!
//! Errors carry the JSON pointer of the failing field (via `serde_path_to_error`).
//! A top-level parameter that arrives as a string but whose target is a struct, map,
//! sequence or data enum is decoded from JSON first: that is how rich parameters travel
//! through Bedrock, whose function details only declare scalar and array types.

use serde::de::value::{BorrowedStrDeserializer, MapDeserializer};
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

use crate::invalid::{ArgumentError, pointer};

/// Deserializes `T` from an arguments object, naming the failing field on error.
pub(crate) fn extract<T: DeserializeOwned>(args: &Map<String, Value>) -> Result<T, ArgumentError> {
    // Fast path without path tracking; on failure, deserialize again to locate the error.
    if let Ok(value) = T::deserialize(ArgsDe(entries(args))) {
        return Ok(value);
    }
    serde_path_to_error::deserialize(ArgsDe(entries(args))).map_err(|e| {
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

/// `T` straight from converted `(name, value)` parameters, without building the arguments
/// object: `None` when a name repeats or `T` refuses them, and the caller then builds the
/// object and extracts from it, which reports the problem. Entries are handed over in key
/// order, as from the object.
pub(crate) fn extract_entries<T: DeserializeOwned>(params: Vec<(&str, Param<'_>)>) -> Option<T> {
    let params = sorted_unique(params)?;
    T::deserialize(ArgsDe(params.into_iter().map(|(k, v)| (k, v.into_de())))).ok()
}

/// Entries sorted by key, as an arguments object hands them over; `None` when a key
/// repeats (the object keeps one value, and the caller builds it to report the problem).
fn sorted_unique<T>(mut entries: Vec<(&str, T)>) -> Option<Vec<(&str, T)>> {
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let repeated = entries.iter().zip(entries.iter().skip(1)).any(|(a, b)| a.0 == b.0);
    (!repeated).then_some(entries)
}

/// An arguments object's entries as [`ArgsDe`] reads them.
fn entries(args: &Map<String, Value>) -> impl Iterator<Item = (&str, ParamDe<'_>)> {
    args.iter().map(|(k, v)| (k.as_str(), ParamDe::Json(v)))
}

/// One converted parameter: the text itself for string types, else the decoded JSON.
pub(crate) enum Param<'a> {
    /// A parameter whose type keeps the text as it is.
    Text(&'a str),
    /// A decoded number, boolean, array or object.
    Json(Value),
}

impl<'a> Param<'a> {
    /// The deserializer that reads it, moving decoded strings into the target.
    fn into_de(self) -> ParamDe<'a> {
        match self {
            Param::Text(s) => ParamDe::Text(s),
            Param::Json(v) => ParamDe::Owned(v),
        }
    }
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

/// The arguments object's entries, in key order, as a map deserializer whose values decode
/// JSON strings on demand.
struct ArgsDe<I>(I);

impl<'de, I: Iterator<Item = (&'de str, ParamDe<'de>)>> de::Deserializer<'de> for ArgsDe<I> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let mut map = MapDeserializer::new(self.0);
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

/// One top-level parameter value: decoded JSON (borrowed from an arguments object, or owned
/// by a converted parameter), or a string parameter's text.
enum ParamDe<'a> {
    Json(&'a Value),
    Owned(Value),
    Text(&'a str),
}

impl<'a> ParamDe<'a> {
    /// The JSON a string parameter holds, when it holds a container (`accept` says which).
    fn decoded(&self, accept: fn(&Value) -> bool) -> Result<Option<Value>, serde_json::Error> {
        let s = match self {
            ParamDe::Json(Value::String(s)) | ParamDe::Owned(Value::String(s)) => s.as_str(),
            ParamDe::Text(s) => s,
            ParamDe::Json(_) | ParamDe::Owned(_) => return Ok(None),
        };
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

/// Calls a `Deserializer` method on the value as it is: the JSON value, or the text as a
/// borrowed string (which every method reads as a `&Value` string reads).
macro_rules! as_is {
    ($self:expr, $method:ident($($arg:expr),*)) => {
        match $self {
            ParamDe::Json(v) => de::Deserializer::$method(v, $($arg),*),
            ParamDe::Owned(v) => de::Deserializer::$method(v, $($arg),*),
            ParamDe::Text(s) => de::Deserializer::$method(
                BorrowedStrDeserializer::<serde_json::Error>::new(s),
                $($arg),*
            ),
        }
    };
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
                as_is!(self, $method(visitor))
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
        match self {
            ParamDe::Json(Value::Null) | ParamDe::Owned(Value::Null) => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        as_is!(self, deserialize_unit_struct(name, visitor))
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
            None => as_is!(self, deserialize_seq(visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.decoded(is_container)? {
            Some(v) => de::Deserializer::deserialize_tuple(v, len, visitor),
            None => as_is!(self, deserialize_tuple(len, visitor)),
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
            None => as_is!(self, deserialize_tuple_struct(name, len, visitor)),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.decoded(is_container)? {
            Some(v) => de::Deserializer::deserialize_map(v, visitor),
            None => as_is!(self, deserialize_map(visitor)),
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
            None => as_is!(self, deserialize_struct(name, fields, visitor)),
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
            None => as_is!(self, deserialize_enum(name, variants, visitor)),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde::Deserialize;
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    use super::extract_entries;
    use crate::arguments::Arguments;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Args {
        n: Option<f64>,
        s: Option<String>,
        tags: Option<Vec<String>>,
        flag: Option<bool>,
        inner: Option<BTreeMap<String, Value>>,
    }

    /// The fast path, when it answers, gives what the arguments object gives.
    fn agrees<T: DeserializeOwned + PartialEq + std::fmt::Debug>(
        params: &[(String, String, String)],
    ) -> Result<bool, TestCaseError> {
        let triples = || params.iter().map(|(n, k, v)| (n.as_str(), k.as_str(), v.as_str()));
        let Some(fast) = Arguments::converted(triples()).and_then(extract_entries::<T>) else {
            return Ok(false);
        };
        let slow = Arguments::from_triples(triples()).ok().and_then(|a| a.extract::<T>().ok());
        prop_assert_eq!(Some(fast), slow);
        Ok(true)
    }

    fn params() -> impl Strategy<Value = Vec<(String, String, String)>> {
        let name = prop::sample::select(vec!["n", "s", "tags", "flag", "inner", "other"]);
        let kind = prop::sample::select(vec![
            "string", "number", "integer", "boolean", "array", "object", "x",
        ]);
        let value = prop_oneof![
            Just("12.5".to_string()),
            Just("[a, b]".to_string()),
            Just(r#"["a"]"#.to_string()),
            Just(r#"{"k": [1]}"#.to_string()),
            Just("TRUE".to_string()),
            "[a-z0-9\\[\\]{},\" ]{0,8}",
        ];
        prop::collection::vec(
            (name.prop_map(String::from), kind.prop_map(String::from), value),
            0..5,
        )
    }

    #[test]
    fn plain_parameters_take_the_fast_path() {
        let p = |n: &str, k: &str, v: &str| (n.to_string(), k.to_string(), v.to_string());
        let params = [p("tags", "array", "[a, b]"), p("n", "number", "2"), p("s", "string", "[x]")];
        let mut runner = proptest::test_runner::TestRunner::default();
        runner
            .run(&Just(()), |()| {
                prop_assert!(agrees::<Args>(&params)?);
                prop_assert!(agrees::<Value>(&params)?);
                Ok(())
            })
            .unwrap();
        let twice = [p("s", "string", "a"), p("s", "string", "a")];
        let triples = twice.iter().map(|(n, k, v)| (n.as_str(), k.as_str(), v.as_str()));
        assert!(Arguments::converted(triples).and_then(extract_entries::<Value>).is_none());
    }

    proptest! {
        #[test]
        fn the_fast_path_agrees_with_the_arguments_object(params in params()) {
            agrees::<Args>(&params)?;
            agrees::<Value>(&params)?;
            agrees::<BTreeMap<String, String>>(&params)?;
        }
    }
}
