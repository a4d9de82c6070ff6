//! The request context as a small tree of plain values whose strings are borrowed from
//! wherever the context came from (the typed [`RequestContext`](crate::RequestContext),
//! or the JSON text of a request): checked against the limits, then turned into `cel`
//! values ([`Value::to_cel`]) part by part, as conditions read them.

use crate::context::prepared::Boxed;
use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelTimestamp,
    CelUInt,
};
use chrono::{DateTime, FixedOffset};
use std::borrow::Cow;
use std::collections::HashMap;

/// One value of the request context.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value<'a> {
    /// JSON `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number that fits `i64`.
    Int(i64),
    /// A positive number above `i64::MAX`.
    UInt(u64),
    /// Any other number.
    Double(f64),
    /// A string.
    Str(Cow<'a, str>),
    /// `request.time`.
    Time(DateTime<FixedOffset>),
    /// A list.
    List(Vec<Value<'a>>),
    /// A map with string keys, in the order given (keys are unique).
    Map(Vec<(Cow<'a, str>, Value<'a>)>),
}

impl<'a> Value<'a> {
    /// A string borrowed from `s`.
    pub(crate) fn str(s: &'a str) -> Self {
        Value::Str(Cow::Borrowed(s))
    }

    /// `v`, borrowing its strings. Numbers map as the interpreter's JSON conversion
    /// does: `i64` first, then `u64`, else `f64`.
    pub(crate) fn from_json(v: &'a serde_json::Value) -> Self {
        use serde_json::Value as J;
        match v {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => Value::number(n),
            J::String(s) => Value::str(s),
            J::Array(items) => Value::List(items.iter().map(Value::from_json).collect()),
            J::Object(m) => Value::map_from_json(m),
        }
    }

    /// The number `n`: `i64` first, then `u64`, else `f64`.
    pub(crate) fn number(n: &serde_json::Number) -> Self {
        match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(u)) => Value::UInt(u),
            _ => Value::Double(n.as_f64().unwrap_or(f64::NAN)),
        }
    }

    /// The map `m`, borrowing its keys and strings.
    pub(crate) fn map_from_json(m: &'a serde_json::Map<String, serde_json::Value>) -> Self {
        Value::Map(
            m.iter().map(|(k, v)| (Cow::Borrowed(k.as_str()), Value::from_json(v))).collect(),
        )
    }

    /// The entry under `key`, when this is a map holding it.
    pub(crate) fn get(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The same value owning its strings.
    pub(crate) fn into_owned(self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::Int(i) => Value::Int(i),
            Value::UInt(u) => Value::UInt(u),
            Value::Double(d) => Value::Double(d),
            Value::Str(s) => Value::Str(Cow::Owned(s.into_owned())),
            Value::Time(t) => Value::Time(t),
            Value::List(items) => Value::List(items.into_iter().map(Value::into_owned).collect()),
            Value::Map(entries) => Value::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned()))
                    .collect(),
            ),
        }
    }

    /// The `cel` value the interpreter sees for this value.
    pub(crate) fn to_cel(&self) -> Boxed {
        match self {
            Value::Null => Box::new(CelNull),
            Value::Bool(b) => Box::new(CelBool::from(*b)),
            Value::Int(i) => Box::new(CelInt::from(*i)),
            Value::UInt(u) => Box::new(CelUInt::from(*u)),
            Value::Double(d) => Box::new(CelDouble::from(*d)),
            Value::Str(s) => Box::new(CelString::from(s.to_string())),
            Value::Time(t) => Box::new(CelTimestamp::from(*t)),
            Value::List(items) => {
                Box::new(CelList::from(items.iter().map(Value::to_cel).collect::<Vec<_>>()))
            }
            Value::Map(entries) => {
                let map: HashMap<CelMapKey<'static>, Boxed> = entries
                    .iter()
                    .map(|(k, v)| (CelMapKey::from(k.to_string()), v.to_cel()))
                    .collect();
                Box::new(CelMap::from(map))
            }
        }
    }
}
