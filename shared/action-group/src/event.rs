//! The action-group Lambda input event, in both forms AWS documents
//! (<https://docs.aws.amazon.com/bedrock/latest/userguide/agents-lambda.html>): the one
//! description of it. Serialized as declared here; read by [`crate::parse_event`], which
//! `ActionGroupEvent`'s `Deserialize` also uses.

use std::collections::BTreeMap;

use serde::Serialize;

/// String-to-string attribute map (`sessionAttributes`, `promptSessionAttributes`).
pub type Attributes = BTreeMap<String, String>;

/// The agent that invoked the action group (`agent`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Agent {
    /// `agent.name`.
    pub name: String,
    /// `agent.id`.
    pub id: String,
    /// `agent.alias`.
    pub alias: String,
    /// `agent.version`.
    pub version: String,
}

/// One `{name, type, value}` entry of `parameters` or of a request-body `properties` list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Parameter {
    /// Parameter name as declared in the function details or OpenAPI schema.
    pub name: String,
    /// Declared type: `string`, `number`, `integer`, `boolean`, `array` (API schemas also `object`).
    #[serde(rename = "type")]
    pub kind: String,
    /// The value, always sent by Bedrock as a string.
    pub value: String,
}

impl Parameter {
    /// Builds a parameter from its three parts.
    pub fn new(name: impl Into<String>, kind: impl Into<String>, value: impl Into<String>) -> Self {
        Self { name: name.into(), kind: kind.into(), value: value.into() }
    }
}

/// Event for an action group defined with function details (`function` + `parameters`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionEvent {
    /// `messageVersion` (Bedrock only sends `1.0`).
    pub message_version: String,
    /// `agent`.
    pub agent: Agent,
    /// `inputText`: the user input for the turn.
    pub input_text: String,
    /// `sessionId`.
    pub session_id: String,
    /// `actionGroup`: the action group name.
    pub action_group: String,
    /// `function`: the function name from the function details.
    pub function: String,
    /// `parameters`.
    pub parameters: Vec<Parameter>,
    /// `sessionAttributes`.
    pub session_attributes: Attributes,
    /// `promptSessionAttributes`.
    pub prompt_session_attributes: Attributes,
}

/// Properties of one request-body content type (`requestBody.content.<type>`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MediaContent {
    /// `properties`.
    pub properties: Vec<Parameter>,
}

/// `requestBody` of an API-schema event.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RequestBody {
    /// `content`, keyed by content type (e.g. `application/json`).
    pub content: BTreeMap<String, MediaContent>,
}

/// Event for an action group defined with an OpenAPI schema (`apiPath`, `httpMethod`, `requestBody`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiEvent {
    /// `messageVersion` (Bedrock only sends `1.0`).
    pub message_version: String,
    /// `agent`.
    pub agent: Agent,
    /// `inputText`: the user input for the turn.
    pub input_text: String,
    /// `sessionId`.
    pub session_id: String,
    /// `actionGroup`: the action group name.
    pub action_group: String,
    /// `apiPath`: the operation path from the OpenAPI schema.
    pub api_path: String,
    /// `httpMethod`: the operation method from the OpenAPI schema.
    pub http_method: String,
    /// `parameters`: path, query and header parameters.
    pub parameters: Vec<Parameter>,
    /// `requestBody`, when the operation has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<RequestBody>,
    /// `sessionAttributes`.
    pub session_attributes: Attributes,
    /// `promptSessionAttributes`.
    pub prompt_session_attributes: Attributes,
}

/// An action-group input event in either documented form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ActionGroupEvent {
    /// Function-details form.
    Function(FunctionEvent),
    /// API-schema form.
    Api(ApiEvent),
}

/// Accessors of the members both forms have, each `&self -> &type`.
macro_rules! either_form {
    ($($(#[$doc:meta])* $name:ident: $ty:ty => $function:ident / $api:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(&self) -> &$ty {
            match self {
                Self::Function(e) => &e.$function,
                Self::Api(e) => &e.$api,
            }
        }
    )*};
}

impl ActionGroupEvent {
    either_form! {
        /// `messageVersion`.
        message_version: str => message_version / message_version;
        /// `actionGroup`.
        action_group: str => action_group / action_group;
        /// The invoked operation: `function`, or `apiPath` for the API-schema form.
        name: str => function / api_path;
        /// `agent`.
        agent: Agent => agent / agent;
        /// `sessionId`.
        session_id: str => session_id / session_id;
        /// `inputText`.
        input_text: str => input_text / input_text;
        /// `sessionAttributes`.
        session_attributes: Attributes => session_attributes / session_attributes;
        /// `promptSessionAttributes`.
        prompt_session_attributes: Attributes => prompt_session_attributes / prompt_session_attributes;
    }

    /// All parameters in order: `parameters`, then every request-body property (API form).
    pub fn all_parameters(&self) -> impl Iterator<Item = &Parameter> {
        let (params, body) = match self {
            Self::Function(e) => (&e.parameters, None),
            Self::Api(e) => (&e.parameters, e.request_body.as_ref()),
        };
        let body_props =
            body.into_iter().flat_map(|b| b.content.values()).flat_map(|m| &m.properties);
        params.iter().chain(body_props)
    }
}
