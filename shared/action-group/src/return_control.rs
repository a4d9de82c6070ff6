//! Return of control: tools Bedrock does not run itself (MCP and inline tools, executor
//! `RETURN_CONTROL`) come back to the runtime as a `returnControl` payload; the runtime
//! runs them and resumes the session with `inlineSessionState.returnControlInvocationResults`.
//! Shapes: `ReturnControlPayload`, `InvocationInputMember`, `InvocationResultMember` and
//! `InlineSessionState` of the Bedrock Agent Runtime model.
//!
//! Before it runs a returned call, a runtime authorizes it against the tool's call rules
//! ([`authorize`], SPEC section 16): through the registry's `POST /tools/{id}/authorize`
//! ([`ApiAuthorizer`]) or in process on the compiled rules (`registry-guard`'s
//! `RuleSetAuthorizer`).

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::arguments::Arguments;
use crate::builder::ResponseBuilder;
use crate::error::ToolError;
use crate::event::Parameter;
use crate::invalid::InvalidArguments;
use crate::parse::EventError;
use crate::response::{ResponseKind, ResponseState};

pub use crate::authorize::{
    ApiAuthorizer, ApiTransport, Authorization, AuthorizeError, Authorizer, BoxError, Refused,
    authorize, authorize_path, authorize_request, not_permitted,
};

/// Most results one `inlineSessionState` carries (AWS `ReturnControlInvocationResults`).
pub const MAX_RESULTS: usize = 5;

/// What a returned call invokes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// A function of an action group defined with function details.
    Function(String),
    /// An operation of an action group defined with an OpenAPI schema.
    Api {
        /// `apiPath`.
        api_path: String,
        /// `httpMethod`.
        http_method: String,
    },
}

/// One call Bedrock returns to the runtime (`invocationInputs[]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlCall {
    /// `actionGroup`: the tool's name.
    pub action_group: String,
    /// What is invoked.
    pub operation: Operation,
    /// `agentId`, when Bedrock sends it.
    pub agent_id: Option<String>,
    /// `collaboratorName`: the collaborator that asked, in a multi-agent session.
    pub collaborator_name: Option<String>,
    /// `parameters` (and, for the API form, the request-body properties), as Bedrock
    /// sends them: `{name, type, value}` with string values.
    pub parameters: Vec<Parameter>,
}

/// A `returnControl` payload: the calls to run and the id to answer with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnControl {
    /// `invocationId`, echoed in `inlineSessionState`.
    pub invocation_id: String,
    /// The calls, in order.
    pub calls: Vec<ControlCall>,
}

/// One `returnControlInvocationResults` entry (`InvocationResultMember`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvocationResult(Value);

impl InvocationResult {
    /// The entry as JSON.
    pub fn as_json(&self) -> &Value {
        &self.0
    }
}

/// Reads a `returnControl` payload (as the runtime's event stream delivers it, in the
/// model's member names); `Err` names the offending member by JSON Pointer.
pub fn parse_return_control(payload: &Value) -> Result<ReturnControl, EventError> {
    let err = |pointer: &str, message: &str| EventError {
        pointer: pointer.to_owned(),
        message: message.to_owned(),
    };
    let invocation_id = payload
        .get("invocationId")
        .and_then(Value::as_str)
        .ok_or_else(|| err("/invocationId", "must be a string"))?
        .to_owned();
    let inputs = payload
        .get("invocationInputs")
        .and_then(Value::as_array)
        .ok_or_else(|| err("/invocationInputs", "must be a list"))?;
    let mut calls = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        let at = format!("/invocationInputs/{i}");
        let Some(object) = input.as_object().filter(|o| o.len() == 1) else {
            return Err(err(
                &at,
                "must have exactly one of functionInvocationInput, apiInvocationInput",
            ));
        };
        let (form, body) = object.iter().next().ok_or_else(|| err(&at, "is empty"))?;
        let at = format!("{at}/{form}");
        let text = |key: &str| body.get(key).and_then(Value::as_str).map(str::to_owned);
        let need =
            |key: &str| text(key).ok_or_else(|| err(&format!("{at}/{key}"), "must be a string"));
        let operation = match form.as_str() {
            "functionInvocationInput" => Operation::Function(need("function")?),
            "apiInvocationInput" => {
                Operation::Api { api_path: need("apiPath")?, http_method: need("httpMethod")? }
            }
            other => return Err(err(&at, &format!("unknown invocation input `{other}`"))),
        };
        let mut parameters = parameters(body.get("parameters"), &format!("{at}/parameters"))?;
        if let Some(content) = body.pointer("/requestBody/content").and_then(Value::as_object) {
            for (media, value) in content {
                let path = format!("{at}/requestBody/content/{media}/properties");
                parameters.extend(self::parameters(value.get("properties"), &path)?);
            }
        }
        calls.push(ControlCall {
            action_group: need("actionGroup")?,
            operation,
            agent_id: text("agentId"),
            collaborator_name: text("collaboratorName"),
            parameters,
        });
    }
    Ok(ReturnControl { invocation_id, calls })
}

fn parameters(list: Option<&Value>, at: &str) -> Result<Vec<Parameter>, EventError> {
    let Some(list) = list else { return Ok(Vec::new()) };
    let items = list.as_array().ok_or_else(|| EventError {
        pointer: at.to_owned(),
        message: "must be a list of {name, type, value}".to_owned(),
    })?;
    items
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let field = |key: &str| {
                p.get(key).and_then(Value::as_str).map(str::to_owned).ok_or_else(|| EventError {
                    pointer: format!("{at}/{i}/{key}"),
                    message: "must be a string".to_owned(),
                })
            };
            Ok(Parameter::new(field("name")?, field("type")?, field("value")?))
        })
        .collect()
}

impl ControlCall {
    /// The call's arguments, converted strictly by the one decoder (as for events).
    pub fn arguments(&self) -> Result<Arguments, InvalidArguments> {
        Arguments::from_parameters(&self.parameters)
    }

    /// The function name, for function-form calls.
    pub fn function(&self) -> Option<&str> {
        match &self.operation {
            Operation::Function(name) => Some(name),
            Operation::Api { .. } => None,
        }
    }

    /// The result entry for this call from the tool's outcome: its value as the body, or
    /// the error mapped as for Lambda responses (`REPROMPT` naming bad arguments,
    /// `FAILURE`, or a reply for the model).
    pub fn result<R: Serialize>(&self, outcome: Result<R, ToolError>) -> InvocationResult {
        let builder = self.builder();
        let response = match outcome {
            Ok(value) => builder.json(&value).build(),
            Err(e) => builder.error(&e).build(),
        };
        self.entry(response)
    }

    /// A response builder for this call's operation.
    pub(crate) fn builder(&self) -> ResponseBuilder {
        match &self.operation {
            Operation::Function(f) => ResponseBuilder::function(&self.action_group, f),
            Operation::Api { api_path, http_method } => {
                ResponseBuilder::api(&self.action_group, api_path, http_method)
            }
        }
    }

    /// The result entry carrying `response`.
    pub(crate) fn entry(&self, response: crate::response::ActionGroupResponse) -> InvocationResult {
        let state = response.state();
        let mut entry = Map::new();
        let (key, mut body) = match response.response {
            ResponseKind::Function(f) => (
                "functionResult",
                json!({"actionGroup": f.action_group, "function": f.function,
                       "responseBody": f.function_response.response_body}),
            ),
            ResponseKind::Api(a) => (
                "apiResult",
                json!({"actionGroup": a.action_group, "apiPath": a.api_path,
                       "httpMethod": a.http_method, "httpStatusCode": a.http_status_code,
                       "responseBody": a.response_body}),
            ),
        };
        if let Some(state) = state {
            body["responseState"] = json!(match state {
                ResponseState::Reprompt => "REPROMPT",
                ResponseState::Failure => "FAILURE",
            });
        }
        if let Some(agent) = &self.agent_id {
            body["agentId"] = json!(agent);
        }
        entry.insert(key.to_owned(), body);
        InvocationResult(Value::Object(entry))
    }
}

/// The `inlineSessionState` that resumes the session with `results`: pass it to the
/// next `InvokeInlineAgent` of the session. AWS takes 1 to 5 results per call: `Err`
/// with the count otherwise.
pub fn session_state(invocation_id: &str, results: &[InvocationResult]) -> Result<Value, usize> {
    if results.is_empty() || results.len() > MAX_RESULTS {
        return Err(results.len());
    }
    Ok(json!({"invocationId": invocation_id, "returnControlInvocationResults": results}))
}
