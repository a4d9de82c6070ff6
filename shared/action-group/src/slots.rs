//! The one parse of an event: serde visitors that read event JSON (text or a `Value`) into
//! raw field slots, borrowing strings where the input allows.
//!
//! Every JSON value is read through `deserialize_any`, as `serde_json::Value` reads it, so
//! text is checked exactly as a `Value` parse checks it (escapes, numbers, nesting depth,
//! trailing characters) and fails with the same error. Nothing here judges shapes: a slot
//! records what the event has (absent, `null`, the expected shape, or another JSON kind)
//! and [`crate::parse`] validates it. A key given twice keeps its last value, as in a `Value`.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// What an event has under one key: nothing, `null`, the expected shape, or another kind.
#[derive(Debug, Default)]
pub(crate) enum Shaped<T> {
    /// The key is absent.
    #[default]
    Absent,
    /// `null`.
    Null,
    /// A value of another JSON kind (`"number"`, `"array"`, ...), for messages.
    Other(&'static str),
    /// A value of the expected shape.
    Value(T),
}

/// A string field.
pub(crate) type Slot<'v> = Shaped<Cow<'v, str>>;

/// A `{name, type, value}` list (`parameters`, `properties`).
pub(crate) type ParamList<'v> = Shaped<Vec<Shaped<ParamSlots<'v>>>>;

/// `sessionAttributes` / `promptSessionAttributes`.
pub(crate) type AttributeSlots<'v> = Shaped<Entries<'v, Cow<'v, str>>>;

/// The whole event (an object, or another kind at the root).
pub(crate) type RootSlots<'v> = Shaped<EventSlots<'v>>;

/// How a shape is read from the JSON kinds it accepts; `None` means "another kind".
pub(crate) trait Shape<'de>: Sized {
    /// From a string.
    fn string(_s: Cow<'de, str>) -> Option<Self> {
        None
    }

    /// Whether [`Shape::string`] can accept a string (saves copying one it would refuse).
    const STRING: bool = false;

    /// From an array (every element must be consumed).
    fn seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Option<Self>, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(None)
    }

    /// From an object (every entry must be consumed).
    fn map<A: MapAccess<'de>>(mut map: A) -> Result<Option<Self>, A::Error> {
        while map.next_key::<Skip>()?.is_some() {
            map.next_value::<Skip>()?;
        }
        Ok(None)
    }
}

impl<'de, T: Shape<'de>> Deserialize<'de> for Shaped<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ShapedVisitor(PhantomData))
    }
}

struct ShapedVisitor<T>(PhantomData<T>);

impl<T> ShapedVisitor<T> {
    fn or(value: Option<T>, kind: &'static str) -> Shaped<T> {
        value.map_or(Shaped::Other(kind), Shaped::Value)
    }
}

impl<'de, T: Shape<'de>> Visitor<'de> for ShapedVisitor<T> {
    type Value = Shaped<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Shaped::Null)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Shaped::Null)
    }

    fn visit_bool<E>(self, _v: bool) -> Result<Self::Value, E> {
        Ok(Shaped::Other("boolean"))
    }

    fn visit_i64<E>(self, _v: i64) -> Result<Self::Value, E> {
        Ok(Shaped::Other("number"))
    }

    fn visit_u64<E>(self, _v: u64) -> Result<Self::Value, E> {
        Ok(Shaped::Other("number"))
    }

    fn visit_f64<E>(self, _v: f64) -> Result<Self::Value, E> {
        Ok(Shaped::Other("number"))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Self::or(T::string(Cow::Borrowed(v)), "string"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        if !T::STRING {
            return Ok(Shaped::Other("string"));
        }
        Ok(Self::or(T::string(Cow::Owned(v.to_owned())), "string"))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Self::or(T::string(Cow::Owned(v)), "string"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        T::seq(seq).map(|v| Self::or(v, "array"))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::map(map).map(|v| Self::or(v, "object"))
    }
}

/// Any JSON value, checked and dropped (strings are decoded, so bad escapes are errors).
pub(crate) struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_none<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_bool<E>(self, _v: bool) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_i64<E>(self, _v: i64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_u64<E>(self, _v: u64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_f64<E>(self, _v: f64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_str<E>(self, _v: &str) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Skip, A::Error> {
        <() as Shape>::seq(seq).map(|_| Skip)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Skip, A::Error> {
        <() as Shape>::map(map).map(|_| Skip)
    }
}

/// Accepts no kind: reading into `Shaped<()>` only classifies and checks.
impl Shape<'_> for () {}

impl<'de> Shape<'de> for Cow<'de, str> {
    const STRING: bool = true;

    fn string(s: Cow<'de, str>) -> Option<Self> {
        Some(s)
    }
}

impl<'de, T: Shape<'de>> Shape<'de> for Vec<Shaped<T>> {
    fn seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Option<Self>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(8).min(64));
        while let Some(item) = seq.next_element()? {
            out.push(item);
        }
        Ok(Some(out))
    }
}

/// An object read as (key, value) entries in document order, duplicates included.
#[derive(Debug)]
pub(crate) struct Entries<'v, T>(pub Vec<(Cow<'v, str>, Shaped<T>)>);

impl<'de, T: Shape<'de>> Shape<'de> for Entries<'de, T> {
    fn map<A: MapAccess<'de>>(mut map: A) -> Result<Option<Self>, A::Error> {
        let mut out = Vec::with_capacity(map.size_hint().unwrap_or(4).min(64));
        while let Some(Key(k)) = map.next_key()? {
            out.push((k, map.next_value()?));
        }
        Ok(Some(Entries(out)))
    }
}

impl<'v, T> Entries<'v, T> {
    /// The entries as a `serde_json::Map` (a `BTreeMap`) holds them: sorted by key, the last
    /// value of a repeated key kept.
    pub(crate) fn as_map(&self) -> Vec<(&str, &Shaped<T>)> {
        let mut out: Vec<(&str, &Shaped<T>)> =
            self.0.iter().rev().map(|(k, v)| (k.as_ref(), v)).collect();
        // Stable: among equal keys the last one in the document comes first, and is kept.
        out.sort_by(|a, b| a.0.cmp(b.0));
        out.dedup_by(|later, kept| later.0 == kept.0);
        out
    }
}

/// Entries sorted by key, in the order [`Entries::as_map`] gives; `None` when a key repeats
/// (where `as_map` would keep the last value, the fast paths leave the input to it).
pub(crate) fn sorted_unique<T>(mut entries: Vec<(&str, T)>) -> Option<Vec<(&str, T)>> {
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let repeated = entries.iter().zip(entries.iter().skip(1)).any(|(a, b)| a.0 == b.0);
    (!repeated).then_some(entries)
}

/// An object key, borrowed when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v)))
    }
}

/// Reads an object's entries, handing each known key's value to `field` (which returns
/// `false` for a key it does not know; that value is then checked and dropped).
fn fields<'de, A, F>(mut map: A, mut field: F) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    F: FnMut(&str, &mut A) -> Result<bool, A::Error>,
{
    while let Some(Key(key)) = map.next_key()? {
        if !field(&key, &mut map)? {
            map.next_value::<Skip>()?;
        }
    }
    Ok(())
}

/// `agent`: its four string fields.
#[derive(Debug, Default)]
pub(crate) struct AgentSlots<'v> {
    pub name: Slot<'v>,
    pub id: Slot<'v>,
    pub alias: Slot<'v>,
    pub version: Slot<'v>,
}

impl<'de> Shape<'de> for AgentSlots<'de> {
    fn map<A: MapAccess<'de>>(map: A) -> Result<Option<Self>, A::Error> {
        let mut s = Self::default();
        fields(map, |key, map| {
            match key {
                "name" => s.name = map.next_value()?,
                "id" => s.id = map.next_value()?,
                "alias" => s.alias = map.next_value()?,
                "version" => s.version = map.next_value()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Some(s))
    }
}

/// One `{name, type, value}` entry.
#[derive(Debug, Default)]
pub(crate) struct ParamSlots<'v> {
    pub name: Slot<'v>,
    pub kind: Slot<'v>,
    pub value: Slot<'v>,
}

impl<'de> Shape<'de> for ParamSlots<'de> {
    fn map<A: MapAccess<'de>>(map: A) -> Result<Option<Self>, A::Error> {
        let mut s = Self::default();
        fields(map, |key, map| {
            match key {
                "name" => s.name = map.next_value()?,
                "type" => s.kind = map.next_value()?,
                "value" => s.value = map.next_value()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Some(s))
    }
}

/// `requestBody.content.<type>`: its `properties`.
#[derive(Debug, Default)]
pub(crate) struct MediaSlots<'v> {
    pub properties: ParamList<'v>,
}

impl<'de> Shape<'de> for MediaSlots<'de> {
    fn map<A: MapAccess<'de>>(map: A) -> Result<Option<Self>, A::Error> {
        let mut s = Self::default();
        fields(map, |key, map| {
            if key != "properties" {
                return Ok(false);
            }
            s.properties = map.next_value()?;
            Ok(true)
        })?;
        Ok(Some(s))
    }
}

/// `requestBody`: its `content`.
#[derive(Debug, Default)]
pub(crate) struct BodySlots<'v> {
    pub content: Shaped<Entries<'v, MediaSlots<'v>>>,
}

impl<'de> Shape<'de> for BodySlots<'de> {
    fn map<A: MapAccess<'de>>(map: A) -> Result<Option<Self>, A::Error> {
        let mut s = Self::default();
        fields(map, |key, map| {
            if key != "content" {
                return Ok(false);
            }
            s.content = map.next_value()?;
            Ok(true)
        })?;
        Ok(Some(s))
    }
}

/// The event object's known fields; unknown fields are checked and dropped.
#[derive(Debug, Default)]
pub(crate) struct EventSlots<'v> {
    pub message_version: Slot<'v>,
    pub agent: Shaped<AgentSlots<'v>>,
    pub input_text: Slot<'v>,
    pub session_id: Slot<'v>,
    pub action_group: Slot<'v>,
    pub function: Slot<'v>,
    pub api_path: Slot<'v>,
    pub http_method: Slot<'v>,
    pub parameters: ParamList<'v>,
    pub request_body: Shaped<BodySlots<'v>>,
    pub session_attributes: AttributeSlots<'v>,
    pub prompt_session_attributes: AttributeSlots<'v>,
}

impl<'de> Shape<'de> for EventSlots<'de> {
    fn map<A: MapAccess<'de>>(map: A) -> Result<Option<Self>, A::Error> {
        let mut s = Self::default();
        fields(map, |key, map| {
            match key {
                "messageVersion" => s.message_version = map.next_value()?,
                "agent" => s.agent = map.next_value()?,
                "inputText" => s.input_text = map.next_value()?,
                "sessionId" => s.session_id = map.next_value()?,
                "actionGroup" => s.action_group = map.next_value()?,
                "function" => s.function = map.next_value()?,
                "apiPath" => s.api_path = map.next_value()?,
                "httpMethod" => s.http_method = map.next_value()?,
                "parameters" => s.parameters = map.next_value()?,
                "requestBody" => s.request_body = map.next_value()?,
                "sessionAttributes" => s.session_attributes = map.next_value()?,
                "promptSessionAttributes" => s.prompt_session_attributes = map.next_value()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Some(s))
    }
}

/// Reads event text in one pass; errors are exactly those of `serde_json::from_str::<Value>`.
pub(crate) fn from_text(text: &str) -> Result<RootSlots<'_>, serde_json::Error> {
    serde_json::from_str(text)
}

/// Reads event bytes that are not UTF-8 text (for the error `serde_json` gives them).
pub(crate) fn from_bytes(bytes: &[u8]) -> Result<RootSlots<'_>, serde_json::Error> {
    serde_json::from_slice(bytes)
}

/// Reads an already-parsed event, borrowing its strings (never fails in practice).
pub(crate) fn from_value(value: &serde_json::Value) -> Result<RootSlots<'_>, serde_json::Error> {
    RootSlots::deserialize(value)
}

impl<T> Shaped<T> {
    /// The value when it has the expected shape.
    pub(crate) fn get(&self) -> Option<&T> {
        match self {
            Shaped::Value(v) => Some(v),
            _ => None,
        }
    }

    /// Whether the key is absent (`null` is present).
    pub(crate) fn is_absent(&self) -> bool {
        matches!(self, Shaped::Absent)
    }
}

impl<'v> Slot<'v> {
    /// The string, when the slot holds one.
    pub(crate) fn str(&self) -> Option<&str> {
        self.get().map(|s| s.as_ref())
    }
}
