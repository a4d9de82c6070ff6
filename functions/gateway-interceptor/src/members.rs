//! A JSON object read as its members, in order and as written (each value raw, byte for
//! byte): what lets the interceptor change one member of a document and keep every other
//! one, and refuse a document that names a member twice (which a parser downstream might
//! read the other way).

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
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

    /// The string value of the member `name` compared without regard to ASCII case (an
    /// HTTP header): `None` when absent or not a string; `Err` when two such members
    /// hold different values.
    pub fn header(&self, name: &str) -> Result<Option<Cow<'a, str>>, Repeated> {
        let mut found: Option<Cow<'a, str>> = None;
        for (key, value) in &self.0 {
            if !key.eq_ignore_ascii_case(name) {
                continue;
            }
            let Some(text) = text(value) else { continue };
            match &found {
                Some(seen) if *seen != text => return Err(Repeated(name.to_owned())),
                Some(_) => {}
                None => found = Some(text),
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
struct Key<'a>(Cow<'a, str>);

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

/// `Err` naming the first member given twice in one object anywhere in `raw` (nested
/// objects and arrays included); `Ok` for any other JSON.
pub fn unique(raw: &RawValue) -> Result<(), Repeated> {
    let mut found = None;
    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
    let _ = Unique { found: &mut found }.deserialize(&mut deserializer);
    match found {
        Some(name) => Err(Repeated(name)),
        None => Ok(()),
    }
}

/// Walks a value; records the first repeated member name and stops there.
struct Unique<'f> {
    found: &'f mut Option<String>,
}

impl<'de> DeserializeSeed<'de> for Unique<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Unique { found: &mut *self.found })?.is_some() {}
        Ok(())
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let mut seen: HashSet<Cow<'de, str>> = HashSet::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if seen.contains(&key.0) {
                *self.found = Some(key.0.into_owned());
                return Err(de::Error::custom("repeated member"));
            }
            seen.insert(key.0);
            map.next_value_seed(Unique { found: &mut *self.found })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
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
        assert_eq!(Members::of(&twice).unwrap().get("tools").unwrap_err(), Repeated("tools".into()));
        for not_an_object in ["[]", "1", "\"x\"", "null"] {
            assert!(Members::of(&raw(not_an_object)).is_none(), "{not_an_object}");
        }
    }

    #[test]
    fn headers_match_in_any_case_and_refuse_two_different_values() {
        let doc = raw(
            r#"{"authorization": "Bearer a", "X-Other": 1, "Mcp-Session-Id": "s", "MCP-SESSION-ID": "s"}"#,
        );
        let headers = Members::of(&doc).unwrap();
        assert_eq!(headers.header("Authorization").unwrap().as_deref(), Some("Bearer a"));
        assert_eq!(headers.header("mcp-session-id").unwrap().as_deref(), Some("s"));
        assert_eq!(headers.header("X-Other").unwrap(), None, "not a string: absent");
        assert_eq!(headers.header("Missing").unwrap(), None);
        let two = raw(r#"{"Authorization": "Bearer a", "AUTHORIZATION": "Bearer b"}"#);
        let headers = Members::of(&two).unwrap();
        assert_eq!(headers.header("authorization"), Err(Repeated("authorization".into())));
        let escaped = raw(r#"{"Author\u0069zation": "Bearer \u0061"}"#);
        let headers = Members::of(&escaped).unwrap();
        assert_eq!(headers.header("authorization").unwrap().as_deref(), Some("Bearer a"));
    }

    #[test]
    fn a_member_given_twice_is_found_at_any_depth() {
        assert_eq!(unique(&raw(r#"{"a": [1, {"b": 2, "c": {}}], "d": "x"}"#)), Ok(()));
        assert_eq!(unique(&raw(r#"[{"a": 1}, {"a": 2}]"#)), Ok(()), "one per object");
        for (doc, name) in [
            (r#"{"a": 1, "a": 1}"#, "a"),
            (r#"{"x": {"amount": 1, "amount": 900}}"#, "amount"),
            (r#"{"x": [{"k": {"q": 1, "\u0071": 2}}]}"#, "q"),
        ] {
            assert_eq!(unique(&raw(doc)), Err(Repeated(name.into())), "{doc}");
        }
    }
}
