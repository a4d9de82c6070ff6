//! Decoded call arguments: a JSON object, before typed extraction.
//!
//! This is the hook for schema validation: a validator can inspect [`Arguments::as_map`]
//! (after [`Arguments::decode_json`] of rich parameters) and report problems as an
//! [`InvalidArguments`] built from `(pointer, message)` pairs.

use registry_types::bedrock_value_is_text;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::convert::convert;
use crate::event::{ActionGroupEvent, Parameter};
use crate::extract::{Param, extract, extract_entries};
use crate::invalid::{ArgumentError, InvalidArguments, quote};

/// The arguments of one call as a JSON object, keyed by parameter name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments(pub(crate) Map<String, Value>);

impl Arguments {
    /// Converts Bedrock parameters strictly (see [`crate::convert`]), reporting every bad one.
    /// A name given twice (e.g. as a query parameter and a body property) must carry the
    /// same value both times.
    pub fn from_parameters<'a>(
        params: impl IntoIterator<Item = &'a Parameter>,
    ) -> Result<Self, InvalidArguments> {
        Self::from_triples(
            params.into_iter().map(|p| (p.name.as_str(), p.kind.as_str(), p.value.as_str())),
        )
    }

    /// Converts `(name, type, value)` triples (see [`Arguments::from_parameters`]).
    pub(crate) fn from_triples<'a>(
        params: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>,
    ) -> Result<Self, InvalidArguments> {
        let mut map = Map::new();
        let mut errors = InvalidArguments::default();
        for (name, kind, value) in params {
            match convert(name, kind, value) {
                Ok(v) => match map.get(name) {
                    Some(seen) if *seen != v => errors.push(ArgumentError::parameter(
                        name,
                        "is given more than once with different values",
                    )),
                    Some(_) => {}
                    None => {
                        map.insert(name.to_string(), v);
                    }
                },
                Err(e) => errors.push(e),
            }
        }
        errors.into_result().map(|()| Self(map))
    }

    /// Every parameter converted, in order, or `None` when one does not convert (the fast path
    /// of typed extraction; [`Arguments::from_triples`] reports the problems).
    pub(crate) fn converted<'a>(
        params: impl Iterator<Item = (&'a str, &'a str, &'a str)>,
    ) -> Option<Vec<(&'a str, Param<'a>)>> {
        let mut out = Vec::with_capacity(params.size_hint().0);
        for (name, kind, value) in params {
            let param = if bedrock_value_is_text(kind) {
                Param::Text(value)
            } else {
                Param::Json(convert(name, kind, value).ok()?)
            };
            out.push((name, param));
        }
        Some(out)
    }

    /// The event's arguments extracted as `T` (see [`Arguments::extract`]): straight from the
    /// converted parameters when they allow it, else through the arguments object, which
    /// reports the problems.
    pub(crate) fn typed<T: DeserializeOwned>(
        event: &ActionGroupEvent,
    ) -> Result<T, InvalidArguments> {
        let triples =
            || event.all_parameters().map(|p| (p.name.as_str(), p.kind.as_str(), p.value.as_str()));
        match Self::converted(triples()).and_then(extract_entries) {
            Some(args) => Ok(args),
            None => Self::from_triples(triples())?.extract(),
        }
    }

    /// Converts the parameters of an event (and the request-body properties of the API form).
    pub fn from_event(event: &ActionGroupEvent) -> Result<Self, InvalidArguments> {
        Self::from_parameters(event.all_parameters())
    }

    /// Wraps an already-decoded JSON object (e.g. a canonical tool call's arguments).
    pub fn from_map(map: Map<String, Value>) -> Self {
        Self(map)
    }

    /// Decodes the named string parameters as JSON (rich parameters declared as strings).
    /// Absent names are skipped; non-string values are left as they are.
    pub fn decode_json<'a>(
        &mut self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), InvalidArguments> {
        let mut errors = InvalidArguments::default();
        for name in names {
            let Some(Value::String(text)) = self.0.get(name) else { continue };
            match serde_json::from_str::<Value>(text) {
                Ok(v) => {
                    self.0.insert(name.to_string(), v);
                }
                Err(e) => errors.push(ArgumentError::parameter(
                    name,
                    format!("expected JSON, got {} ({e})", quote(text)),
                )),
            }
        }
        errors.into_result()
    }

    /// The value of one parameter.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }

    /// The arguments as a JSON object.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }

    /// The arguments as an owned JSON object.
    pub fn into_map(self) -> Map<String, Value> {
        self.0
    }

    /// The arguments as a `serde_json::Value::Object`.
    pub fn into_value(self) -> Value {
        Value::Object(self.0)
    }

    /// Deserializes the arguments into `T`; the error names the failing field by JSON pointer.
    /// String parameters are JSON-decoded when `T` expects a struct, map, sequence or enum there.
    pub fn extract<T: DeserializeOwned>(&self) -> Result<T, InvalidArguments> {
        extract(&self.0).map_err(InvalidArguments::one)
    }
}
