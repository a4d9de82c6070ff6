//! A value with its JSON encoding, made once: a tool version's action group is encoded
//! when it is compiled, and every resolution that includes it copies those bytes
//! instead of serializing the action group again (a third of a resolve response's
//! encoding, by profile).

use std::fmt;
use std::ops::Deref;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// `T` and its JSON text. Serializes as that text (serde_json and `serde_json::Value`
/// read it as JSON); dereferences to `T`.
#[derive(Clone)]
pub struct Encoded<T> {
    value: T,
    json: Box<RawValue>,
}

impl<T: Serialize> Encoded<T> {
    /// Encodes `value` once.
    pub fn new(value: T) -> Result<Self, serde_json::Error> {
        let json = serde_json::value::to_raw_value(&value)?;
        Ok(Self { value, json })
    }
}

impl<T> Deref for Encoded<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: PartialEq> PartialEq for Encoded<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Encoded<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl<T> Serialize for Encoded<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(serializer)
    }
}

impl<'de, T: Serialize + DeserializeOwned> Deserialize<'de> for Encoded<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = T::deserialize(deserializer)?;
        Self::new(value).map_err(serde::de::Error::custom)
    }
}
