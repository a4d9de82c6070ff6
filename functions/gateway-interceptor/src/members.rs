//! A JSON object read as its members, in order and as written (each value raw, byte for
//! byte): what lets the interceptor change one member of a document and keep every other
//! one, and refuse a document that names a member twice (which a parser downstream might
//! read the other way).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// A member named more than once (its name compared as the reader compares it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is given more than once")]
pub struct Repeated(pub String);

/// An object's members in document order.
#[derive(Debug, Default)]
pub struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'a> Members<'a> {
    /// The members of `raw`, when it is a JSON object.
    pub fn of(raw: &'a RawValue) -> Option<Self> {
        serde_json::from_str(raw.get()).ok()
    }

    /// The member `name` (exactly); `Err` when it is given twice.
    pub fn get(&self, name: &str) -> Result<Option<&'a RawValue>, Repeated> {
        let mut found = None;
        for (key, value) in &self.0 {
            if key == name {
                if found.is_some() {
                    return Err(Repeated(name.to_owned()));
                }
                found = Some(*value);
            }
        }
        Ok(found)
    }

    /// These members with the value of `name` replaced by `value` (in its place), as
    /// JSON text.
    pub fn with(&self, name: &str, value: &RawValue) -> Box<RawValue> {
        let replaced = Replaced { members: self, name, value };
        serde_json::value::to_raw_value(&replaced).unwrap_or_else(|_| crate::wire::fallback())
    }
}

/// HTTP headers as the gateway passes them, `{"Name": "value", ...}`, in order, each
/// value decoded when it is a string (the others are not headers anyone reads).
#[derive(Debug, Default)]
pub struct Headers<'a>(Vec<(Cow<'a, str>, Header<'a>)>);

/// One header's value.
#[derive(Debug)]
enum Header<'a> {
    Text(Cow<'a, str>),
    Other(Value),
}

impl<'a> Headers<'a> {
    /// The value of the header `name`, compared without regard to ASCII case: `None`
    /// when absent or not a string; `Err` when sent twice with different values.
    pub fn get(&self, name: &str) -> Result<Option<&str>, Repeated> {
        let mut found: Option<&str> = None;
        for (key, value) in &self.0 {
            let Header::Text(text) = value else { continue };
            if !key.eq_ignore_ascii_case(name) {
                continue;
            }
            match found {
                Some(seen) if seen != text.as_ref() => return Err(Repeated(name.to_owned())),
                Some(_) => {}
                None => found = Some(text),
            }
        }
        Ok(found)
    }
}

/// Headers serialized without the ones named `skip` (compared without regard to ASCII
/// case), the others as [`Headers`] writes them.
#[derive(Debug)]
pub struct Without<'h, 'a> {
    /// The headers.
    pub headers: &'h Headers<'a>,
    /// The names left out.
    pub skip: &'h [&'h str],
}

impl Serialize for Without<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let kept = self
            .headers
            .0
            .iter()
            .filter(|(key, _)| !self.skip.iter().any(|name| key.eq_ignore_ascii_case(name)));
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in kept {
            match value {
                Header::Text(text) => map.serialize_entry(key, text)?,
                Header::Other(other) => map.serialize_entry(key, other)?,
            }
        }
        map.end()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Headers<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Headers<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of headers")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Headers<'a>, M::Error> {
                let mut headers = Vec::new();
                while let Some(Key(key)) = map.next_key::<Key<'a>>()? {
                    headers.push((key, map.next_value::<Header<'a>>()?));
                }
                Ok(Headers(headers))
            }
        }
        deserializer.deserialize_map(Visit(PhantomData))
    }
}

impl Serialize for Headers<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            match value {
                Header::Text(text) => map.serialize_entry(key, text)?,
                Header::Other(other) => map.serialize_entry(key, other)?,
            }
        }
        map.end()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Header<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Header<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a header value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Header<'a>, E> {
                Ok(Header::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Header<'a>, E> {
                Ok(Header::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Header<'a>, E> {
                Ok(Header::Other(Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Header<'a>, E> {
                Ok(Header::Other(Value::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Header<'a>, E> {
                Ok(Header::Other(Value::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Header<'a>, E> {
                Ok(Header::Other(Value::from(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Header<'a>, E> {
                Ok(Header::Other(Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Header<'a>, A::Error> {
                Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Header::Other)
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Header<'a>, M::Error> {
                Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(Header::Other)
            }
        }
        deserializer.deserialize_any(Visit(PhantomData))
    }
}

/// `raw` as a string, when it is one.
pub fn text(raw: &RawValue) -> Option<Cow<'_, str>> {
    match serde_json::from_str::<&str>(raw.get()) {
        Ok(borrowed) => Some(Cow::Borrowed(borrowed)),
        // escapes: decoded into a string of its own
        Err(_) => serde_json::from_str::<String>(raw.get()).ok().map(Cow::Owned),
    }
}

struct Replaced<'m, 'a> {
    members: &'m Members<'a>,
    name: &'m str,
    value: &'m RawValue,
}

impl Serialize for Replaced<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.members.0.len()))?;
        for (key, value) in &self.members.0 {
            let value = if key == self.name { self.value } else { value };
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Members<'a>, M::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<Key<'a>>()? {
                    members.push((key.0, map.next_value::<&'a RawValue>()?));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Visit(PhantomData))
    }
}

/// A member name, borrowed from the document unless it has escapes.
pub struct Key<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Key<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        deserializer.deserialize_str(Visit(PhantomData))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// `text` as raw JSON.
    pub(crate) fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn a_changed_member_keeps_the_others_in_order_and_as_written() {
        let doc = raw(r#"{"z": 1.50, "tools": [1], "a": {"b": "\u00e9"}, "m": null}"#);
        let members = Members::of(&doc).unwrap();
        let changed = members.with("tools", &raw("[]"));
        assert_eq!(changed.get(), r#"{"z":1.50,"tools":[],"a":{"b": "\u00e9"},"m":null}"#);
        assert_eq!(members.get("a").unwrap().unwrap().get(), r#"{"b": "\u00e9"}"#);
        assert!(members.get("nope").unwrap().is_none());
        let twice = raw(r#"{"tools": [1], "tools": []}"#);
        assert_eq!(
            Members::of(&twice).unwrap().get("tools").unwrap_err(),
            Repeated("tools".into())
        );
        for not_an_object in ["[]", "1", "\"x\"", "null"] {
            assert!(Members::of(&raw(not_an_object)).is_none(), "{not_an_object}");
        }
    }

    #[test]
    fn headers_match_in_any_case_and_refuse_two_different_values() {
        let doc = r#"{"authorization": "Bearer a", "X-Other": 1, "Mcp-Session-Id": "s", "MCP-SESSION-ID": "s"}"#;
        let headers: Headers<'_> = serde_json::from_str(doc).unwrap();
        assert_eq!(headers.get("Authorization").unwrap(), Some("Bearer a"));
        assert_eq!(headers.get("mcp-session-id").unwrap(), Some("s"));
        assert_eq!(headers.get("X-Other").unwrap(), None, "not a string: absent");
        assert_eq!(headers.get("Missing").unwrap(), None);
        assert_eq!(
            serde_json::to_string(&headers).unwrap(),
            r#"{"authorization":"Bearer a","X-Other":1,"Mcp-Session-Id":"s","MCP-SESSION-ID":"s"}"#
        );
        let two: Headers<'_> =
            serde_json::from_str(r#"{"Authorization": "Bearer a", "AUTHORIZATION": "Bearer b"}"#)
                .unwrap();
        assert_eq!(two.get("authorization"), Err(Repeated("authorization".into())));
        let escaped: Headers<'_> =
            serde_json::from_str(r#"{"Author\u0069zation": "Bearer \u0061"}"#).unwrap();
        assert_eq!(escaped.get("authorization").unwrap(), Some("Bearer a"));
    }
}
