//! Parses JSON text into a `Value`, refusing an object that repeats a key.
//!
//! `serde_json` keeps the last of two equal keys, so `{"effect":"deny","effect":"allow"}`
//! would silently be an allow. Every body the API accepts goes through [`parse_strict`],
//! which builds the same `Value` in one pass and names the first repeated key by its
//! JSON Pointer. The API reads every body with it, the gateway interceptor a call's
//! arguments.

use crate::Violation;
use registry_types::PointerPath;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::RefCell;
use std::fmt;

/// Why a body is not acceptable JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonError {
    /// Not JSON at all (the message is the parser's, with line and column).
    Syntax(String),
    /// An object repeats a key; the violation's path points at the repeated key.
    DuplicateKey(Violation),
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Syntax(message) => write!(f, "malformed JSON: {message}"),
            Self::DuplicateKey(v) => write!(f, "malformed JSON: {} at `{}`", v.message, v.path),
        }
    }
}

/// Parses `bytes` as one JSON value whose objects have distinct keys.
pub fn parse_strict(bytes: &[u8]) -> Result<Value, JsonError> {
    let duplicate = RefCell::new(None);
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let parsed = StrictValue { at: &PointerPath::Root, duplicate: &duplicate }
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    match (parsed, duplicate.into_inner()) {
        (_, Some(violation)) => Err(JsonError::DuplicateKey(violation)),
        (Ok(value), None) => Ok(value),
        (Err(err), None) => Err(JsonError::Syntax(err.to_string())),
    }
}

/// A seed that builds a `Value` at `at`, recording the first duplicate key it meets.
struct StrictValue<'a, 'p> {
    at: &'p PointerPath<'p>,
    duplicate: &'a RefCell<Option<Violation>>,
}

impl<'de> DeserializeSeed<'de> for StrictValue<'_, '_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        loop {
            let at = PointerPath::Index(self.at, out.len());
            match seq.next_element_seed(StrictValue { at: &at, duplicate: self.duplicate })? {
                Some(item) => out.push(item),
                None => break,
            }
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let at = PointerPath::Key(self.at, &key);
            if out.contains_key(&key) {
                let message = format!("duplicate key `{key}`: each key may appear once");
                *self.duplicate.borrow_mut() = Some(Violation { path: at.pointer(), message });
                return Err(de::Error::custom("duplicate key"));
            }
            let value = map.next_value_seed(StrictValue { at: &at, duplicate: self.duplicate })?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn duplicate_at(text: &str) -> String {
        match parse_strict(text.as_bytes()) {
            Err(JsonError::DuplicateKey(v)) => v.path,
            other => panic!("expected a duplicate key in {text}, got {other:?}"),
        }
    }

    #[test]
    fn same_value_as_serde_json_when_keys_are_distinct() {
        let text =
            r#"{"a":[1,-2,3.5,1e300,18446744073709551615,"x",null,true,{"b/c~":{}}],"z":{}}"#;
        let expected: Value = serde_json::from_str(text).unwrap();
        assert_eq!(parse_strict(text.as_bytes()).unwrap(), expected);
    }

    #[test]
    fn duplicate_keys_are_named_by_pointer() {
        assert_eq!(
            duplicate_at(r#"{"effect":"deny","condition":"true","effect":"allow"}"#),
            "/effect"
        );
        assert_eq!(duplicate_at(r#"{"tags":{"a/b":"1","a/b":"2"}}"#), "/tags/a~1b");
        assert_eq!(
            duplicate_at(r#"{"accessRules":[{},{"effect":"x","effect":"y"}]}"#),
            "/accessRules/1/effect"
        );
        // escapes are decoded before comparing: "\u0061" is "a"
        assert_eq!(duplicate_at(r#"{"a":1,"\u0061":2}"#), "/a");
    }

    #[test]
    fn syntax_errors_and_trailing_garbage_are_refused() {
        for text in ["", "{", r#"{"a":1}x"#, "[1,]", r#"{"a":1,}"#, "\u{feff}{}"] {
            assert!(matches!(parse_strict(text.as_bytes()), Err(JsonError::Syntax(_))), "{text:?}");
        }
        assert_eq!(parse_strict(b" {\"a\" : 1 } \n").unwrap(), json!({"a": 1}));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        assert!(matches!(parse_strict(deep.as_bytes()), Err(JsonError::Syntax(_))));
    }
}
