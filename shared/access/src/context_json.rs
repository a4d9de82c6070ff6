//! The JSON text of a request context read straight into the fast path's values,
//! borrowing every string that needs no unescaping: what
//! [`PreparedContext::from_json`](crate::PreparedContext::from_json) parses.
//!
//! Accepts exactly what `RequestContext`'s own `Deserialize` accepts (unknown fields
//! refused, `null` for an absent optional field); collections above the context limit
//! stop the parse early (the caller then reports the limit through the typed path).

use crate::limits::MAX_CONTEXT_COLLECTION;
use crate::value::Value;
use chrono::{DateTime, FixedOffset};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// `{user, customData, account, request}`, borrowed.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Doc<'a> {
    #[serde(default, borrow)]
    pub user: UserDoc<'a>,
    #[serde(default, borrow)]
    pub custom_data: MapDoc<'a>,
    #[serde(default, borrow)]
    pub account: AccountDoc<'a>,
    #[serde(default, borrow)]
    pub request: RequestDoc<'a>,
}

/// `user`, borrowed.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct UserDoc<'a> {
    #[serde(default, borrow)]
    pub user_id: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub user_type: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub email: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub roles: Option<Strings<'a>>,
}

/// `account`, borrowed.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AccountDoc<'a> {
    #[serde(default, borrow)]
    pub account_id: Option<Text<'a>>,
    #[serde(default, borrow, rename = "type")]
    pub account_type: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub organization_id: Option<Text<'a>>,
}

/// `request`, borrowed.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RequestDoc<'a> {
    #[serde(default, borrow)]
    pub region: Option<Text<'a>>,
    #[serde(default)]
    pub time: Option<DateTime<FixedOffset>>,
    #[serde(default, borrow)]
    pub agent_id: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub tool_id: Option<Text<'a>>,
}

/// A string, borrowed when it has no escapes.
pub(crate) struct Text<'a>(pub Cow<'a, str>);

/// A list of strings, as [`Value::Str`]s.
pub(crate) struct Strings<'a>(pub Vec<Value<'a>>);

/// A JSON object, as [`Value::Map`] entries.
#[derive(Default)]
pub(crate) struct MapDoc<'a>(pub Vec<(Cow<'a, str>, Value<'a>)>);

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(TextVisitor).map(Text)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Strings<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Vec<Value<'de>>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of strings")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(16));
                while let Some(Text(s)) = seq.next_element()? {
                    bounded::<A::Error>(out.len())?;
                    out.push(Value::Str(s));
                }
                Ok(out)
            }
        }
        d.deserialize_seq(V).map(Strings)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for MapDoc<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Vec<(Cow<'de, str>, Value<'de>)>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                entries(map)
            }
        }
        d.deserialize_map(V).map(MapDoc)
    }
}

/// Refuses a collection about to grow past the context limit: the parse stops here
/// rather than doing quadratic work on duplicate keys.
fn bounded<E: de::Error>(len: usize) -> Result<(), E> {
    if len >= MAX_CONTEXT_COLLECTION {
        return Err(E::custom(format!("more than {MAX_CONTEXT_COLLECTION} entries")));
    }
    Ok(())
}

/// The entries of an object; a repeated key keeps its last value, as `serde_json`'s
/// own map does.
fn entries<'de, A: MapAccess<'de>>(
    mut map: A,
) -> Result<Vec<(Cow<'de, str>, Value<'de>)>, A::Error> {
    let mut out: Vec<(Cow<'de, str>, Value<'de>)> =
        Vec::with_capacity(map.size_hint().unwrap_or(0).min(16));
    while let Some(Key(key)) = map.next_key()? {
        let value: Value<'de> = map.next_value()?;
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => {
                bounded::<A::Error>(out.len())?;
                out.push((key, value));
            }
        }
    }
    Ok(out)
}

/// An object key, borrowed when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(TextVisitor).map(Key)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Value<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Value::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(i64::try_from(v).map_or(Value::UInt(v), Value::Int))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Value::Double(v))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Value::Str(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Value::Str(Cow::Owned(v.to_string())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Value::Str(Cow::Owned(v)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(16));
        while let Some(item) = seq.next_element()? {
            bounded::<A::Error>(out.len())?;
            out.push(item);
        }
        Ok(Value::List(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        entries(map).map(Value::Map)
    }
}
