//! `ResponseBuilder`: builds a well-formed response for an event.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::ToolError;
use crate::event::{ActionGroupEvent, Attributes};
use crate::limit::{MAX_RESPONSE_BYTES, fit};
use crate::response::{
    ActionGroupResponse, ApiResult, ContentBody, FunctionResponse, FunctionResult,
    KnowledgeBaseConfiguration, ResponseKind, ResponseState, TEXT,
};

/// Content type used for API-schema response bodies unless set otherwise.
pub const DEFAULT_API_CONTENT_TYPE: &str = "application/json";

#[derive(Debug, Clone)]
enum Form {
    Function { function: String },
    Api { api_path: String, http_method: String, status: Option<u16>, content_type: String },
}

/// Builds an [`ActionGroupResponse`] that echoes the event's action group and operation.
///
/// The event's session and prompt-session attributes are carried over (as AWS's example
/// function does) and can be changed; empty maps are omitted from the JSON. The body is
/// text; [`ResponseBuilder::json`] serializes any `Serialize` value into it. `build` applies
/// the response size limit ([`crate::limit`]).
#[derive(Debug, Clone)]
pub struct ResponseBuilder {
    message_version: String,
    action_group: String,
    form: Form,
    body: String,
    state: Option<ResponseState>,
    session_attributes: Attributes,
    prompt_session_attributes: Attributes,
    knowledge_bases: Vec<KnowledgeBaseConfiguration>,
    limit: usize,
}

impl ResponseBuilder {
    /// A builder answering `event`, with an empty successful body.
    pub fn new(event: &ActionGroupEvent) -> Self {
        Self::from_event(event.clone())
    }

    /// Like [`ResponseBuilder::new`], consuming the event (saves copying its strings).
    pub fn from_event(event: ActionGroupEvent) -> Self {
        let (message_version, action_group, form, session, prompt) = match event {
            ActionGroupEvent::Function(e) => (
                e.message_version,
                e.action_group,
                Form::Function { function: e.function },
                e.session_attributes,
                e.prompt_session_attributes,
            ),
            ActionGroupEvent::Api(e) => (
                e.message_version,
                e.action_group,
                Form::Api {
                    api_path: e.api_path,
                    http_method: e.http_method,
                    status: None,
                    content_type: e
                        .request_body
                        .and_then(|b| b.content.into_keys().next())
                        .unwrap_or_else(|| DEFAULT_API_CONTENT_TYPE.to_string()),
                },
                e.session_attributes,
                e.prompt_session_attributes,
            ),
        };
        Self {
            message_version,
            action_group,
            form,
            body: String::new(),
            state: None,
            session_attributes: session,
            prompt_session_attributes: prompt,
            knowledge_bases: Vec::new(),
            limit: MAX_RESPONSE_BYTES,
        }
    }

    /// A function-details response for names known without a parsed event.
    pub fn function(action_group: &str, function: &str) -> Self {
        let form = Form::Function { function: function.to_string() };
        Self::blank("1.0", action_group.to_string(), form)
    }

    /// An API-schema response for names known without a parsed event.
    pub fn api(action_group: &str, api_path: &str, http_method: &str) -> Self {
        Self::blank(
            "1.0",
            action_group.to_string(),
            Form::Api {
                api_path: api_path.to_string(),
                http_method: http_method.to_string(),
                status: None,
                content_type: DEFAULT_API_CONTENT_TYPE.to_string(),
            },
        )
    }

    /// A response echoing what a raw event that could not be read carries: its
    /// `messageVersion` (`1.0` when it has none, the only version Bedrock takes), and its
    /// `actionGroup`, `function`, `apiPath` and `httpMethod` exactly as they are, each
    /// `""` when the event has none (or not as a string): the documented response format
    /// requires them. The API-schema form when the event has an `apiPath` and no `function`.
    pub fn echoing(event: &serde_json::Value) -> Self {
        let name = |k: &str| event.get(k).and_then(serde_json::Value::as_str).map(str::to_owned);
        let form = match name("apiPath") {
            Some(api_path) if event.get("function").is_none() => Form::Api {
                api_path,
                http_method: name("httpMethod").unwrap_or_default(),
                status: None,
                content_type: DEFAULT_API_CONTENT_TYPE.to_string(),
            },
            _ => Form::Function { function: name("function").unwrap_or_default() },
        };
        let version = name("messageVersion").unwrap_or_else(|| "1.0".to_owned());
        Self::blank(&version, name("actionGroup").unwrap_or_default(), form)
    }

    fn blank(message_version: &str, action_group: String, form: Form) -> Self {
        Self {
            message_version: message_version.to_string(),
            action_group,
            form,
            body: String::new(),
            state: None,
            session_attributes: Attributes::new(),
            prompt_session_attributes: Attributes::new(),
            knowledge_bases: Vec::new(),
            limit: MAX_RESPONSE_BYTES,
        }
    }

    /// Sets the body text.
    pub fn text(mut self, body: impl Into<String>) -> Self {
        self.body = body.into();
        self
    }

    /// Sets the body to `value` serialized as JSON; a value that serializes to a JSON string
    /// becomes that text unquoted. A value that cannot be serialized yields a `FAILURE`.
    pub fn json<T: Serialize + ?Sized>(mut self, value: &T) -> Self {
        match serde_json::to_string(value) {
            Ok(text) if text.starts_with('"') => {
                self.body = serde_json::from_str::<String>(&text).unwrap_or(text);
            }
            Ok(text) => self.body = text,
            Err(e) => {
                self.body = format!("the tool result could not be serialized: {e}");
                self.state = Some(ResponseState::Failure);
            }
        }
        self
    }

    /// Sets `responseState` (`None` = success). For the API form, `FAILURE` means status 500
    /// and `REPROMPT` status 400 unless [`ResponseBuilder::status`] is set.
    pub fn state(mut self, state: Option<ResponseState>) -> Self {
        self.state = state;
        self
    }

    /// Sets the HTTP status code (API form only; ignored for function details).
    pub fn status(mut self, code: u16) -> Self {
        if let Form::Api { status, .. } = &mut self.form {
            *status = Some(code);
        }
        self
    }

    /// Sets the body content type (API form only; function details always use `TEXT`).
    pub fn content_type(mut self, value: &str) -> Self {
        if let Form::Api { content_type, .. } = &mut self.form {
            *content_type = value.to_string();
        }
        self
    }

    /// Sets one session attribute.
    pub fn session_attribute(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.session_attributes.insert(key.into(), value.into());
        self
    }

    /// Replaces all session attributes.
    pub fn session_attributes(mut self, attributes: Attributes) -> Self {
        self.session_attributes = attributes;
        self
    }

    /// Sets one prompt-session attribute.
    pub fn prompt_session_attribute(
        mut self,
        key: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        self.prompt_session_attributes.insert(key.into(), value.into());
        self
    }

    /// Replaces all prompt-session attributes.
    pub fn prompt_session_attributes(mut self, attributes: Attributes) -> Self {
        self.prompt_session_attributes = attributes;
        self
    }

    /// Adds a knowledge-base retrieval configuration.
    pub fn knowledge_base(mut self, config: KnowledgeBaseConfiguration) -> Self {
        self.knowledge_bases.push(config);
        self
    }

    /// Sets the size limit of the serialized response (default [`MAX_RESPONSE_BYTES`]).
    pub fn max_bytes(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Sets body and state from a tool error (see [`ToolError`] for the mapping).
    pub fn error(self, error: &ToolError) -> Self {
        match error {
            ToolError::Reply(m) => self.text(m.as_str()).state(None),
            ToolError::InvalidArguments(i) => {
                self.text(i.reprompt_text()).state(Some(ResponseState::Reprompt))
            }
            ToolError::Failure(m) => self.text(m.as_str()).state(Some(ResponseState::Failure)),
        }
    }

    /// Builds the response, fitted to the size limit.
    pub fn build(self) -> ActionGroupResponse {
        let response = match self.form {
            Form::Function { function } => ResponseKind::Function(FunctionResult {
                action_group: self.action_group,
                function,
                function_response: FunctionResponse {
                    response_state: self.state,
                    response_body: BTreeMap::from([(
                        TEXT.to_string(),
                        ContentBody { body: self.body },
                    )]),
                },
            }),
            Form::Api { api_path, http_method, status, content_type } => {
                ResponseKind::Api(ApiResult {
                    action_group: self.action_group,
                    api_path,
                    http_method,
                    http_status_code: status.unwrap_or(status_of(self.state)),
                    response_body: BTreeMap::from([(
                        content_type,
                        ContentBody { body: self.body },
                    )]),
                })
            }
        };
        let mut out = ActionGroupResponse {
            message_version: self.message_version,
            response,
            session_attributes: self.session_attributes,
            prompt_session_attributes: self.prompt_session_attributes,
            knowledge_bases_configuration: self.knowledge_bases,
        };
        fit(&mut out, self.limit);
        out
    }
}

/// The HTTP status of an API-schema response in `state`, unless one is set.
fn status_of(state: Option<ResponseState>) -> u16 {
    match state {
        None => 200,
        Some(ResponseState::Reprompt) => 400,
        Some(ResponseState::Failure) => 500,
    }
}

impl ActionGroupEvent {
    /// Starts a response to this event.
    pub fn respond(&self) -> ResponseBuilder {
        ResponseBuilder::new(self)
    }
}
