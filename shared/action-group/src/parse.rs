//! The one reader of action-group events: a JSON value, validated into an
//! [`ActionGroupEvent`] (text is parsed into a `serde_json::Value` first).
//!
//! Lenient: absent or `null` optional fields (`agent`, `inputText`, `sessionId`,
//! `parameters`, attributes, `requestBody`, a parameter's `type`) take empty defaults,
//! a missing `messageVersion` is `1.0`, and unknown fields are ignored. Precise: a field of
//! the wrong shape, a missing `actionGroup`, or an event that is neither form is an
//! [`EventError`] carrying the JSON pointer of the problem. Fields are checked in a fixed
//! order and the entries of a map in key order, so an event with several problems always
//! names the same one.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::event::{
    ActionGroupEvent, Agent, ApiEvent, Attributes, FunctionEvent, MediaContent, Parameter,
    RequestBody,
};
use crate::invalid::pointer;

/// A structural problem with an event: where (JSON pointer) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventError {
    /// JSON pointer of the offending field (`""` for the whole event).
    pub pointer: String,
    /// What is wrong, e.g. `must be a list of {name, type, value} objects, got object`.
    pub message: String,
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() { "event" } else { &self.pointer };
        write!(f, "malformed action-group event: {at}: {}", self.message)
    }
}

impl std::error::Error for EventError {}

/// A location in the event, as a chain on the stack: no allocation unless an error is built.
#[derive(Clone, Copy)]
struct Loc<'a> {
    parent: Option<&'a Loc<'a>>,
    key: Option<&'a str>,
    index: usize,
}

const ROOT: Loc<'static> = Loc { parent: None, key: None, index: 0 };

impl<'a> Loc<'a> {
    fn key(&'a self, key: &'a str) -> Loc<'a> {
        Loc { parent: Some(self), key: Some(key), index: 0 }
    }

    fn index(&'a self, index: usize) -> Loc<'a> {
        Loc { parent: Some(self), key: None, index }
    }

    fn segments(&self) -> Vec<String> {
        let mut out = self.parent.map(Loc::segments).unwrap_or_default();
        if self.parent.is_some() {
            out.push(self.key.map_or_else(|| self.index.to_string(), str::to_string));
        }
        out
    }

    fn err(&self, message: impl Into<String>) -> EventError {
        EventError { pointer: pointer(&self.segments()), message: message.into() }
    }
}

/// Reads an event in either documented form.
pub fn parse_event(value: &Value) -> Result<ActionGroupEvent, EventError> {
    let Some(obj) = value.as_object() else {
        return Err(ROOT.err(format!("must be a JSON object, got {}", kind(value))));
    };
    let message_version = opt_str(obj, &ROOT, "messageVersion")?.unwrap_or("1.0").to_owned();
    let agent = agent(obj)?;
    let input_text = text(obj, "inputText")?;
    let session_id = text(obj, "sessionId")?;
    let action_group = req_str(obj, &ROOT, "actionGroup")?.to_owned();
    let parameters = parameters(obj.get("parameters"), &ROOT.key("parameters"))?;
    let session_attributes = attributes(obj, "sessionAttributes")?;
    let prompt_session_attributes = attributes(obj, "promptSessionAttributes")?;
    if let Some(function) = opt_str(obj, &ROOT, "function")? {
        return Ok(ActionGroupEvent::Function(FunctionEvent {
            message_version,
            agent,
            input_text,
            session_id,
            action_group,
            function: function.to_owned(),
            parameters,
            session_attributes,
            prompt_session_attributes,
        }));
    }
    let Some(api_path) = opt_str(obj, &ROOT, "apiPath")? else {
        return Err(
            ROOT.err("has neither `function` (function details) nor `apiPath` (API schema)")
        );
    };
    Ok(ActionGroupEvent::Api(ApiEvent {
        message_version,
        agent,
        input_text,
        session_id,
        action_group,
        api_path: api_path.to_owned(),
        http_method: req_str(obj, &ROOT, "httpMethod")?.to_owned(),
        parameters,
        request_body: request_body(obj.get("requestBody"))?,
        session_attributes,
        prompt_session_attributes,
    }))
}

/// Serde reads an event as [`parse_event`] does (the error is its message).
impl<'de> Deserialize<'de> for ActionGroupEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        parse_event(&value).map_err(serde::de::Error::custom)
    }
}

/// The JSON kind of a value, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// An object's entries in key order (a `Map` keeps insertion order when `serde_json`'s
/// `preserve_order` feature is on somewhere in the build).
fn sorted(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

fn opt_str<'v>(
    obj: &'v Map<String, Value>,
    base: &Loc<'_>,
    key: &str,
) -> Result<Option<&'v str>, EventError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(base.key(key).err(format!("must be a string, got {}", kind(other)))),
    }
}

fn req_str<'v>(
    obj: &'v Map<String, Value>,
    base: &Loc<'_>,
    key: &str,
) -> Result<&'v str, EventError> {
    opt_str(obj, base, key)?.ok_or_else(|| base.key(key).err("is required"))
}

/// An optional string of the event object, `""` when absent.
fn text(obj: &Map<String, Value>, key: &str) -> Result<String, EventError> {
    Ok(opt_str(obj, &ROOT, key)?.unwrap_or_default().to_owned())
}

fn agent(obj: &Map<String, Value>) -> Result<Agent, EventError> {
    let loc = ROOT.key("agent");
    match obj.get("agent") {
        None | Some(Value::Null) => Ok(Agent::default()),
        Some(Value::Object(a)) => {
            let f = |k| Ok::<_, EventError>(opt_str(a, &loc, k)?.unwrap_or_default().to_owned());
            Ok(Agent { name: f("name")?, id: f("id")?, alias: f("alias")?, version: f("version")? })
        }
        Some(other) => Err(loc.err(format!("must be an object, got {}", kind(other)))),
    }
}

fn parameters(value: Option<&Value>, loc: &Loc<'_>) -> Result<Vec<Parameter>, EventError> {
    let items = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(loc.err(format!(
                "must be a list of {{name, type, value}} objects, got {}",
                kind(other)
            )));
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let p = loc.index(i);
        let Some(o) = item.as_object() else {
            return Err(
                p.err(format!("must be a {{name, type, value}} object, got {}", kind(item)))
            );
        };
        out.push(Parameter::new(
            req_str(o, &p, "name")?,
            opt_str(o, &p, "type")?.unwrap_or("string"),
            req_str(o, &p, "value")?,
        ));
    }
    Ok(out)
}

fn attributes(obj: &Map<String, Value>, key: &str) -> Result<Attributes, EventError> {
    let loc = ROOT.key(key);
    let map = match obj.get(key) {
        None | Some(Value::Null) => return Ok(Attributes::new()),
        Some(Value::Object(m)) => m,
        Some(other) => {
            return Err(loc.err(format!("must be an object of strings, got {}", kind(other))));
        }
    };
    sorted(map)
        .into_iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k.clone(), s.clone())),
            other => Err(loc.key(k).err(format!("must be a string, got {}", kind(other)))),
        })
        .collect()
}

fn request_body(value: Option<&Value>) -> Result<Option<RequestBody>, EventError> {
    let loc = ROOT.key("requestBody");
    let body = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(b)) => b,
        Some(other) => return Err(loc.err(format!("must be an object, got {}", kind(other)))),
    };
    let content_loc = loc.key("content");
    let content = match body.get("content") {
        None | Some(Value::Null) => return Ok(Some(RequestBody::default())),
        Some(Value::Object(c)) => c,
        Some(other) => {
            return Err(content_loc.err(format!("must be an object, got {}", kind(other))));
        }
    };
    let mut out = BTreeMap::new();
    for (ctype, media) in sorted(content) {
        let m_loc = content_loc.key(ctype);
        let Some(m) = media.as_object() else {
            return Err(m_loc.err(format!("must be an object, got {}", kind(media))));
        };
        let properties = parameters(m.get("properties"), &m_loc.key("properties"))?;
        out.insert(ctype.clone(), MediaContent { properties });
    }
    Ok(Some(RequestBody { content: out }))
}
