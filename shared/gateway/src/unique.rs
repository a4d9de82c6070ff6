//! JSON read as a gateway must read what it passes on: a member named twice in one
//! object is refused, not resolved. Parsers disagree on which of the two counts (the
//! last here, the first in others), so a call decided on one value could reach the tool
//! with the other.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// `bytes` as JSON, refused when an object names a member twice (or as
/// `serde_json::from_slice` refuses it: not UTF-8, nested too deep, not JSON).
pub fn from_slice_unique(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    serde_json::from_slice::<Unique>(bytes).map(|unique| unique.0)
}

/// [`from_slice_unique`] of a string.
pub fn from_str_unique(text: &str) -> Result<Value, serde_json::Error> {
    from_slice_unique(text.as_bytes())
}

/// A JSON value whose objects name each member once.
struct Unique(Value);

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueVisitor).map(Unique)
    }
}

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("not a JSON number"))
    }

    fn visit_str<E: Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut values = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4_096));
        while let Some(Unique(value)) = seq.next_element()? {
            values.push(value);
        }
        Ok(Value::Array(values))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                let key = registry_types::quote(&key);
                return Err(A::Error::custom(format!("the member {key} is named twice")));
            }
            let Unique(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_named_twice_is_refused_at_any_depth() {
        let twice = [
            r#"{"a":1,"a":2}"#,
            r#"{"x":{"a":1,"b":{"c":[{"d":1,"d":1}]}}}"#,
            r#"[{"a":1,"\u0061":2}]"#,
        ];
        for text in twice {
            assert!(from_str_unique(text).is_err(), "{text}");
        }
        let fine = r#"{"a":[1,-2,3.5,1e308,18446744073709551615,"s",null,true,{}],"b":{"a":1}}"#;
        assert_eq!(from_str_unique(fine).ok(), serde_json::from_str::<Value>(fine).ok());
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(from_str_unique(&deep).is_err());
    }
}
