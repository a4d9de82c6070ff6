//! Conversions to and from the provider-neutral tool call (`id`, `name`, `arguments`) and
//! tool result (`content` text blocks, `isError`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::arguments::Arguments;
use crate::builder::ResponseBuilder;
use crate::event::{ActionGroupEvent, FunctionEvent, Parameter};
use crate::invalid::InvalidArguments;
use crate::response::{ActionGroupResponse, ResponseState};

/// A request to invoke a tool with decoded arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Id that matches the eventual [`ToolResult`].
    pub id: String,
    /// Tool name: the event's `function` (or `apiPath` for the API form).
    pub name: String,
    /// Decoded arguments object.
    pub arguments: Map<String, Value>,
}

/// A visible text block of a tool result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "text")]
pub struct TextContent {
    /// The text.
    pub text: String,
}

/// The outcome of a tool call.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The matching [`ToolCall::id`], when known.
    pub tool_call_id: Option<String>,
    /// The tool name, when known.
    pub tool_name: Option<String>,
    /// Text blocks returned to the model.
    pub content: Vec<TextContent>,
    /// Whether the result is an error observation.
    pub is_error: bool,
}

impl ToolCall {
    /// The call an event represents, with arguments converted strictly; `id` is supplied by
    /// the caller (Bedrock events carry none; the Lambda request id is a good choice).
    pub fn from_event(
        event: &ActionGroupEvent,
        id: impl Into<String>,
    ) -> Result<Self, InvalidArguments> {
        Ok(Self {
            id: id.into(),
            name: event.name().to_string(),
            arguments: Arguments::from_event(event)?.into_map(),
        })
    }

    /// A function-details event for this call in `action_group`, with `sessionId` = `id`.
    /// Each argument becomes a parameter typed from its JSON value: strings `string`,
    /// integers `integer`, other numbers `number`, booleans `boolean`, arrays `array` (JSON
    /// text), objects `string` holding JSON (a rich parameter); `null` arguments are left out.
    pub fn to_event(&self, action_group: &str) -> FunctionEvent {
        let parameters = self
            .arguments
            .iter()
            .filter_map(|(name, v)| {
                let (kind, value) = match v {
                    Value::Null => return None,
                    Value::String(s) => ("string", s.clone()),
                    Value::Bool(b) => ("boolean", b.to_string()),
                    Value::Number(n) if n.is_f64() => ("number", n.to_string()),
                    Value::Number(n) => ("integer", n.to_string()),
                    Value::Array(_) => ("array", v.to_string()),
                    Value::Object(_) => ("string", v.to_string()),
                };
                Some(Parameter::new(name.as_str(), kind, value))
            })
            .collect();
        FunctionEvent {
            message_version: "1.0".to_string(),
            session_id: self.id.clone(),
            action_group: action_group.to_string(),
            function: self.name.clone(),
            parameters,
            ..FunctionEvent::default()
        }
    }
}

impl ToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            tool_call_id: None,
            tool_name: None,
            content: vec![TextContent { text: text.into() }],
            is_error: false,
        }
    }

    /// The result a response carries: its body as one text block; `isError` when the
    /// response is `FAILURE` or `REPROMPT` (API form: status 400 or above).
    pub fn from_response(response: &ActionGroupResponse) -> Self {
        Self {
            tool_call_id: None,
            tool_name: None,
            content: vec![TextContent { text: response.body().to_string() }],
            is_error: response.state().is_some(),
        }
    }

    /// All text blocks joined by newlines.
    pub fn joined_text(&self) -> String {
        self.content.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join("\n")
    }

    /// The response answering `event` with this result: text blocks joined by newlines;
    /// an error result becomes `REPROMPT` (the model sees it and may retry).
    pub fn to_response(&self, event: &ActionGroupEvent) -> ActionGroupResponse {
        let state = self.is_error.then_some(ResponseState::Reprompt);
        ResponseBuilder::new(event).text(self.joined_text()).state(state).build()
    }
}
