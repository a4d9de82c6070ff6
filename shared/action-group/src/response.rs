//! The action-group Lambda response, in both forms AWS documents
//! (<https://docs.aws.amazon.com/bedrock/latest/userguide/agents-lambda.html#agents-lambda-response>).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::event::Attributes;

/// Content type key of a function-details response body (the only one Bedrock supports).
pub const TEXT: &str = "TEXT";

/// `responseState` of a function-details response. Absent means success.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResponseState {
    /// The agent throws a `DependencyFailedException` for the session.
    #[serde(rename = "FAILURE")]
    Failure,
    /// The agent passes the body to the model to reprompt it (invalid input).
    #[serde(rename = "REPROMPT")]
    Reprompt,
}

/// `{ "body": "..." }` under a content-type key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentBody {
    /// `body`.
    pub body: String,
}

/// `response.functionResponse` of a function-details response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionResponse {
    /// `responseState`; omitted on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_state: Option<ResponseState>,
    /// `responseBody`, keyed by content type (`TEXT`).
    pub response_body: BTreeMap<String, ContentBody>,
}

/// `response` of a function-details response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionResult {
    /// `actionGroup`, echoed from the event (`""` when the event has none: the
    /// documented format requires the member).
    #[serde(default)]
    pub action_group: String,
    /// `function`, echoed from the event (`""` when the event has none).
    #[serde(default)]
    pub function: String,
    /// `functionResponse`.
    pub function_response: FunctionResponse,
}

/// `response` of an API-schema response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiResult {
    /// `actionGroup`, echoed from the event (`""` when the event has none: the
    /// documented format requires the member).
    #[serde(default)]
    pub action_group: String,
    /// `apiPath`, echoed from the event (`""` when the event has none).
    #[serde(default)]
    pub api_path: String,
    /// `httpMethod`, echoed from the event (`""` when the event has none).
    #[serde(default)]
    pub http_method: String,
    /// `httpStatusCode`.
    pub http_status_code: u16,
    /// `responseBody`, keyed by content type (e.g. `application/json`).
    pub response_body: BTreeMap<String, ContentBody>,
}

/// `response`: either form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResponseKind {
    /// Function-details form.
    Function(FunctionResult),
    /// API-schema form.
    Api(ApiResult),
}

/// `overrideSearchType` of a knowledge-base vector search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SearchType {
    /// `HYBRID`.
    Hybrid,
    /// `SEMANTIC`.
    Semantic,
}

/// `retrievalConfiguration.vectorSearchConfiguration`.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VectorSearchConfiguration {
    /// `numberOfResults`.
    pub number_of_results: Option<u32>,
    /// `overrideSearchType`.
    pub override_search_type: Option<SearchType>,
    /// `filter`: a `RetrievalFilter` object, kept as JSON.
    pub filter: Option<Value>,
}

/// `retrievalConfiguration`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetrievalConfiguration {
    /// `vectorSearchConfiguration`.
    pub vector_search_configuration: VectorSearchConfiguration,
}

/// One entry of `knowledgeBasesConfiguration`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeBaseConfiguration {
    /// `knowledgeBaseId`.
    pub knowledge_base_id: String,
    /// `retrievalConfiguration`.
    pub retrieval_configuration: RetrievalConfiguration,
}

/// The Lambda response to Bedrock. Empty attribute maps and an empty knowledge-base list
/// are omitted when serialized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionGroupResponse {
    /// `messageVersion` (`1.0`).
    pub message_version: String,
    /// `response`.
    pub response: ResponseKind,
    /// `sessionAttributes`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub session_attributes: Attributes,
    /// `promptSessionAttributes`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prompt_session_attributes: Attributes,
    /// `knowledgeBasesConfiguration`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knowledge_bases_configuration: Vec<KnowledgeBaseConfiguration>,
}

impl ActionGroupResponse {
    /// The response body text (the first content type's `body`), or `""`.
    pub fn body(&self) -> &str {
        self.body_map().values().next().map_or("", |c| c.body.as_str())
    }

    /// `responseState` (function form); for the API form, derived from the status code:
    /// 400..=499 is `REPROMPT`, 500 and above `FAILURE`.
    pub fn state(&self) -> Option<ResponseState> {
        match &self.response {
            ResponseKind::Function(f) => f.function_response.response_state,
            ResponseKind::Api(a) => match a.http_status_code {
                400..=499 => Some(ResponseState::Reprompt),
                500.. => Some(ResponseState::Failure),
                _ => None,
            },
        }
    }

    /// `response.actionGroup`.
    pub fn action_group(&self) -> &str {
        match &self.response {
            ResponseKind::Function(f) => &f.action_group,
            ResponseKind::Api(a) => &a.action_group,
        }
    }

    pub(crate) fn body_map(&self) -> &BTreeMap<String, ContentBody> {
        match &self.response {
            ResponseKind::Function(f) => &f.function_response.response_body,
            ResponseKind::Api(a) => &a.response_body,
        }
    }

    pub(crate) fn body_map_mut(&mut self) -> &mut BTreeMap<String, ContentBody> {
        match &mut self.response {
            ResponseKind::Function(f) => &mut f.function_response.response_body,
            ResponseKind::Api(a) => &mut a.response_body,
        }
    }
}
