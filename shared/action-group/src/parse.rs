//! Lenient-but-precise reading of a raw JSON event into an [`ActionGroupEvent`]: the event
//! is read once into slots ([`crate::slots`]), which are validated here.
//!
//! Lenient: absent or `null` optional fields (`agent`, `inputText`, `sessionId`,
//! `parameters`, attributes, `requestBody`, a parameter's `type`) take empty defaults,
//! a missing `messageVersion` is `1.0`, and unknown fields are ignored. Precise: a field of
//! the wrong shape, a missing `actionGroup`, or an event that is neither form is an
//! [`EventError`] carrying the JSON pointer of the problem.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use crate::builder::DEFAULT_API_CONTENT_TYPE;
use crate::event::{
    ActionGroupEvent, Agent, ApiEvent, Attributes, FunctionEvent, MediaContent, Parameter,
    RequestBody,
};
use crate::invalid::pointer;
use crate::slots::{
    AgentSlots, AttributeSlots, BodySlots, ParamList, RootSlots, Shaped, Slot, from_value,
};

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
    let root = from_value(value).map_err(|e| ROOT.err(e.to_string()))?;
    view(&root).map(|v| v.to_event())
}

/// One `{name, type, value}` entry, borrowed from the raw event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ParamView<'v> {
    pub name: &'v str,
    pub kind: &'v str,
    pub value: &'v str,
}

/// Which form the event has, with its operation names.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum FormView<'v> {
    Function(&'v str),
    Api { api_path: &'v str, http_method: &'v str },
}

/// A validated event borrowed from the raw JSON: what [`parse_event`] copies into an
/// [`ActionGroupEvent`], and what the typed pipeline uses without copying.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EventView<'v> {
    pub message_version: &'v str,
    pub agent: [&'v str; 4],
    pub input_text: &'v str,
    pub session_id: &'v str,
    pub action_group: &'v str,
    pub form: FormView<'v>,
    pub parameters: Vec<ParamView<'v>>,
    /// `requestBody.content` entries (content type, properties); `None` without `requestBody`.
    pub request_body: Option<Vec<(&'v str, Vec<ParamView<'v>>)>>,
    pub session_attributes: Vec<(&'v str, &'v str)>,
    pub prompt_session_attributes: Vec<(&'v str, &'v str)>,
}

impl EventView<'_> {
    /// All parameters in order: `parameters`, then every request-body property.
    pub fn all_parameters(&self) -> impl Iterator<Item = &ParamView<'_>> {
        let body = self.request_body.iter().flatten().flat_map(|(_, props)| props);
        self.parameters.iter().chain(body)
    }

    /// The content type an API-schema response answers with: the request body's first,
    /// else [`DEFAULT_API_CONTENT_TYPE`].
    pub(crate) fn content_type(&self) -> &str {
        self.request_body
            .as_ref()
            .and_then(|b| b.first())
            .map_or(DEFAULT_API_CONTENT_TYPE, |(ct, _)| ct)
    }

    /// The owned event, every string copied.
    pub(crate) fn to_event(&self) -> ActionGroupEvent {
        let params = |ps: &[ParamView<'_>]| -> Vec<Parameter> {
            ps.iter().map(|p| Parameter::new(p.name, p.kind, p.value)).collect()
        };
        let attrs = |a: &[(&str, &str)]| -> Attributes {
            a.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect()
        };
        let [name, id, alias, version] = self.agent.map(str::to_string);
        let agent = Agent { name, id, alias, version };
        match self.form {
            FormView::Function(function) => ActionGroupEvent::Function(FunctionEvent {
                message_version: self.message_version.to_string(),
                agent,
                input_text: self.input_text.to_string(),
                session_id: self.session_id.to_string(),
                action_group: self.action_group.to_string(),
                function: function.to_string(),
                parameters: params(&self.parameters),
                session_attributes: attrs(&self.session_attributes),
                prompt_session_attributes: attrs(&self.prompt_session_attributes),
            }),
            FormView::Api { api_path, http_method } => ActionGroupEvent::Api(ApiEvent {
                message_version: self.message_version.to_string(),
                agent,
                input_text: self.input_text.to_string(),
                session_id: self.session_id.to_string(),
                action_group: self.action_group.to_string(),
                api_path: api_path.to_string(),
                http_method: http_method.to_string(),
                parameters: params(&self.parameters),
                request_body: self.request_body.as_ref().map(|content| RequestBody {
                    content: content
                        .iter()
                        .map(|(ct, props)| {
                            ((*ct).to_string(), MediaContent { properties: params(props) })
                        })
                        .collect::<BTreeMap<_, _>>(),
                }),
                session_attributes: attrs(&self.session_attributes),
                prompt_session_attributes: attrs(&self.prompt_session_attributes),
            }),
        }
    }
}

/// Validates an event read into slots and borrows its parts.
pub(crate) fn view<'a>(root: &'a RootSlots<'_>) -> Result<EventView<'a>, EventError> {
    let obj = match root {
        Shaped::Value(obj) => obj,
        other => {
            return Err(ROOT.err(format!("must be a JSON object, got {}", other.kind())));
        }
    };
    let message_version = opt_str(&obj.message_version, &ROOT, "messageVersion")?.unwrap_or("1.0");
    let agent = agent(&obj.agent)?;
    let input_text = opt_str(&obj.input_text, &ROOT, "inputText")?.unwrap_or_default();
    let session_id = opt_str(&obj.session_id, &ROOT, "sessionId")?.unwrap_or_default();
    let action_group = req_str(&obj.action_group, &ROOT, "actionGroup")?;
    let parameters = parameters(&obj.parameters, &ROOT.key("parameters"))?;
    let session_attributes = attributes(&obj.session_attributes, "sessionAttributes")?;
    let prompt_session_attributes =
        attributes(&obj.prompt_session_attributes, "promptSessionAttributes")?;
    let (form, request_body) = if let Some(function) = opt_str(&obj.function, &ROOT, "function")? {
        (FormView::Function(function), None)
    } else if let Some(api_path) = opt_str(&obj.api_path, &ROOT, "apiPath")? {
        let http_method = req_str(&obj.http_method, &ROOT, "httpMethod")?;
        (FormView::Api { api_path, http_method }, request_body(&obj.request_body)?)
    } else {
        return Err(
            ROOT.err("has neither `function` (function details) nor `apiPath` (API schema)")
        );
    };
    Ok(EventView {
        message_version,
        agent,
        input_text,
        session_id,
        action_group,
        form,
        parameters,
        request_body,
        session_attributes,
        prompt_session_attributes,
    })
}

impl<T> Shaped<T> {
    /// The JSON kind of a value that is not of the expected shape, for messages.
    fn kind(&self) -> &'static str {
        match self {
            Shaped::Other(kind) => kind,
            Shaped::Value(_) => "value",
            Shaped::Absent | Shaped::Null => "null",
        }
    }
}

fn opt_str<'a>(
    slot: &'a Slot<'_>,
    base: &Loc<'_>,
    key: &str,
) -> Result<Option<&'a str>, EventError> {
    match slot {
        Shaped::Absent | Shaped::Null => Ok(None),
        Shaped::Value(s) => Ok(Some(s)),
        Shaped::Other(kind) => Err(base.key(key).err(format!("must be a string, got {kind}"))),
    }
}

fn req_str<'a>(slot: &'a Slot<'_>, base: &Loc<'_>, key: &str) -> Result<&'a str, EventError> {
    opt_str(slot, base, key)?.ok_or_else(|| base.key(key).err("is required"))
}

fn agent<'a>(slot: &'a Shaped<AgentSlots<'_>>) -> Result<[&'a str; 4], EventError> {
    let loc = ROOT.key("agent");
    match slot {
        Shaped::Absent | Shaped::Null => Ok([""; 4]),
        Shaped::Value(a) => {
            let f = |s, k| Ok::<_, EventError>(opt_str(s, &loc, k)?.unwrap_or_default());
            Ok([
                f(&a.name, "name")?,
                f(&a.id, "id")?,
                f(&a.alias, "alias")?,
                f(&a.version, "version")?,
            ])
        }
        Shaped::Other(kind) => Err(loc.err(format!("must be an object, got {kind}"))),
    }
}

fn parameters<'a>(
    list: &'a ParamList<'_>,
    loc: &Loc<'_>,
) -> Result<Vec<ParamView<'a>>, EventError> {
    let items = match list {
        Shaped::Absent | Shaped::Null => return Ok(Vec::new()),
        Shaped::Value(items) => items,
        Shaped::Other(kind) => {
            return Err(
                loc.err(format!("must be a list of {{name, type, value}} objects, got {kind}"))
            );
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let p = loc.index(i);
        let Shaped::Value(o) = item else {
            return Err(
                p.err(format!("must be a {{name, type, value}} object, got {}", item.kind()))
            );
        };
        out.push(ParamView {
            name: req_str(&o.name, &p, "name")?,
            kind: opt_str(&o.kind, &p, "type")?.unwrap_or("string"),
            value: req_str(&o.value, &p, "value")?,
        });
    }
    Ok(out)
}

fn attributes<'a>(
    slot: &'a AttributeSlots<'_>,
    key: &str,
) -> Result<Vec<(&'a str, &'a str)>, EventError> {
    let loc = ROOT.key(key);
    let map = match slot {
        Shaped::Absent | Shaped::Null => return Ok(Vec::new()),
        Shaped::Value(m) => m.as_map(),
        Shaped::Other(kind) => {
            return Err(loc.err(format!("must be an object of strings, got {kind}")));
        }
    };
    let mut out = Vec::with_capacity(map.len());
    for (k, v) in map {
        match v {
            Shaped::Value(s) => out.push((k, s.as_ref())),
            other => {
                return Err(loc.key(k).err(format!("must be a string, got {}", other.kind())));
            }
        }
    }
    Ok(out)
}

/// `requestBody.content` as (content type, properties) pairs.
pub(crate) type BodyView<'v> = Vec<(&'v str, Vec<ParamView<'v>>)>;

fn request_body<'a>(slot: &'a Shaped<BodySlots<'_>>) -> Result<Option<BodyView<'a>>, EventError> {
    let loc = ROOT.key("requestBody");
    let body = match slot {
        Shaped::Absent | Shaped::Null => return Ok(None),
        Shaped::Value(b) => b,
        Shaped::Other(kind) => return Err(loc.err(format!("must be an object, got {kind}"))),
    };
    let content_loc = loc.key("content");
    let content = match &body.content {
        Shaped::Absent | Shaped::Null => return Ok(Some(Vec::new())),
        Shaped::Value(c) => c.as_map(),
        Shaped::Other(kind) => {
            return Err(content_loc.err(format!("must be an object, got {kind}")));
        }
    };
    let mut out = Vec::with_capacity(content.len());
    for (ctype, media) in content {
        let m_loc = content_loc.key(ctype);
        let Shaped::Value(m) = media else {
            return Err(m_loc.err(format!("must be an object, got {}", media.kind())));
        };
        out.push((ctype, parameters(&m.properties, &m_loc.key("properties"))?));
    }
    Ok(Some(out))
}
