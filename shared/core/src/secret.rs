//! A write-only string: stored, never printed, never serialized.
//!
//! Serializing a `Secret` is an error, so no response, log line or error can carry one by
//! accident; fields holding one skip it ([`Secret::never`]). The one place that writes
//! it is the storage form ([`crate::Definition::storage_json`]), through
//! [`Secret::expose`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A secret value such as an OAuth client secret; `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself, for the code that must use it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// For `skip_serializing_if`: a secret field is always left out.
    pub fn never(_: &Option<Secret>) -> bool {
        true
    }
}

/// Always fails: a secret is never serialized (see the module docs).
impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("a secret is never serialized"))
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Secret)
    }
}

impl utoipa::PartialSchema for Secret {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .write_only(Some(true))
            .description(Some("Write-only: accepted on input, never returned."))
            .into()
    }
}

impl utoipa::ToSchema for Secret {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_value() {
        assert_eq!(format!("{:?}", Secret::new("hunter2")), "Secret(***)");
    }

    #[test]
    fn serializing_fails_instead_of_leaking() {
        let err = serde_json::to_string(&Secret::new("hunter2")).unwrap_err();
        assert!(!err.to_string().contains("hunter2"));
    }
}
