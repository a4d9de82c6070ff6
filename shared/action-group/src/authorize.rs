//! Authorizing returned calls before the runtime runs them (SPEC section 16): the same
//! call rules as the guard of tool Lambdas, decided by the registry's
//! `POST /tools/{toolId}/authorize` ([`ApiAuthorizer`]) or by any other [`Authorizer`]
//! (in process on the tool's compiled rules: `registry-guard`'s `RuleSetAuthorizer`).
//! [`authorize`] fails closed: a call that could not be decided is not run.

use std::future::Future;

use serde_json::{Value, json};

use crate::invalid::InvalidArguments;
use crate::response::ResponseState;
use crate::return_control::{ControlCall, InvocationResult, Operation};

/// What an authorizer decided for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    /// Whether the call may run.
    pub allowed: bool,
    /// The id of the deciding rule, when one decided.
    pub rule_id: Option<String>,
    /// Why it is denied, as the model may read it (a rule's description), when known.
    pub reason: Option<String>,
}

/// A call [`authorize`] did not let through.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    /// The result entry to send instead of running the call.
    pub result: InvocationResult,
    /// What happened, for the runtime's log (never sent to the model).
    pub detail: String,
}

/// Why a call was not decided ([`authorize`] answers `FAILURE`; the text is logged).
#[derive(Debug, thiserror::Error)]
pub enum AuthorizeError {
    /// The call's arguments cannot be sent (the text the model would read).
    #[error("{}", .0.reprompt_text())]
    Arguments(InvalidArguments),
    /// The registry API was not reached ([`ApiTransport`] failed).
    #[error(transparent)]
    Transport(BoxError),
    /// The registry answered an error status, with its `detail` (or `title`).
    #[error("the registry answered {status}: {detail}")]
    Status {
        /// The status code.
        status: u16,
        /// What the problem document says.
        detail: String,
    },
    /// The registry's answer says neither allow nor deny.
    #[error("the registry's answer has no effect `allow` or `deny`")]
    NoEffect,
    /// Another authorizer could not decide (counts unavailable, an invalid context).
    #[error(transparent)]
    Undecided(BoxError),
}

/// Any error (or message) behind [`AuthorizeError::Transport`] and
/// [`AuthorizeError::Undecided`].
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl AuthorizeError {
    /// The transport failed with `error` (an HTTP client's error, or a message).
    pub fn transport(error: impl Into<BoxError>) -> Self {
        Self::Transport(error.into())
    }

    /// The call could not be decided because of `error` (an error, or a message).
    pub fn undecided(error: impl Into<BoxError>) -> Self {
        Self::Undecided(error.into())
    }
}

/// Decides whether a returned call of tool `tool_id` may run for the request context
/// `context` (the JSON the runtime resolved the agent with). `Err`: not decided.
pub trait Authorizer {
    /// Decides `call`.
    fn authorize(
        &self,
        tool_id: &str,
        context: &Value,
        call: &ControlCall,
    ) -> impl Future<Output = Result<Authorization, AuthorizeError>>;
}

/// How [`ApiAuthorizer`] reaches the registry API: the runtime's own HTTP client, with
/// the credentials it already uses for `resolve` (the API answers the reader role).
pub trait ApiTransport {
    /// POSTs the JSON `body` to `path` of the registry API (e.g.
    /// `/tools/convert_units@1.0.0/authorize`); the status code and the JSON answer, or
    /// [`AuthorizeError::transport`] of why not.
    fn post_json(
        &self,
        path: &str,
        body: &Value,
    ) -> impl Future<Output = Result<(u16, Value), AuthorizeError>>;
}

/// Authorizes through `POST /tools/{toolId}/authorize` of the registry API.
#[derive(Debug, Clone)]
pub struct ApiAuthorizer<T> {
    transport: T,
    agent_id: Option<String>,
}

impl<T: ApiTransport> ApiAuthorizer<T> {
    /// An authorizer posting through `transport`.
    pub fn new(transport: T) -> Self {
        Self { transport, agent_id: None }
    }

    /// This authorizer naming the registry agent the calls are made for (`agentId`,
    /// read by rules as `request.agentId`).
    #[must_use]
    pub fn for_agent(mut self, agent_id: impl Into<String>) -> Self {
        self.agent_id = Some(agent_id.into());
        self
    }
}

impl<T: ApiTransport> Authorizer for ApiAuthorizer<T> {
    async fn authorize(
        &self,
        tool_id: &str,
        context: &Value,
        call: &ControlCall,
    ) -> Result<Authorization, AuthorizeError> {
        let mut body = authorize_request(context, call).map_err(AuthorizeError::Arguments)?;
        if let Some(agent_id) = &self.agent_id {
            body["agentId"] = json!(agent_id);
        }
        let path = authorize_path(tool_id);
        let (status, answer) = self.transport.post_json(&path, &body).await?;
        let text = |key: &str| answer.get(key).and_then(Value::as_str).map(str::to_owned);
        if status != 200 {
            let detail = text("detail").or_else(|| text("title")).unwrap_or_default();
            return Err(AuthorizeError::Status { status, detail });
        }
        let allowed = match text("effect").as_deref() {
            Some("allow") => true,
            Some("deny") => false,
            _ => return Err(AuthorizeError::NoEffect),
        };
        Ok(Authorization { allowed, rule_id: text("ruleId"), reason: None })
    }
}

/// The body of `POST /tools/{toolId}/authorize` for `call`:
/// `{"context": ..., "call": {"function", "httpMethod"?, "arguments"}}`, the arguments
/// converted strictly by the one decoder (the API types them by the tool's schema); the
/// function is the `apiPath` for API-schema calls, with their `httpMethod`.
pub fn authorize_request(context: &Value, call: &ControlCall) -> Result<Value, InvalidArguments> {
    let arguments = call.arguments()?.into_value();
    let mut body =
        json!({"context": context, "call": {"function": call.name(), "arguments": arguments}});
    if let Operation::Api { http_method, .. } = &call.operation {
        body["call"]["httpMethod"] = json!(http_method);
    }
    Ok(body)
}

/// Authorizes `call` with `authorizer`: `Ok` when it may run, else the result entry to
/// send instead: `REPROMPT` naming why for a denial, `FAILURE` when it could not be
/// decided (fail closed).
pub async fn authorize<A: Authorizer>(
    authorizer: &A,
    tool_id: &str,
    context: &Value,
    call: &ControlCall,
) -> Result<Authorization, Refused> {
    match authorizer.authorize(tool_id, context, call).await {
        Ok(authorization) if authorization.allowed => Ok(authorization),
        Ok(denied) => {
            let why = match (&denied.reason, &denied.rule_id) {
                (Some(reason), _) => reason.clone(),
                (None, Some(id)) => format!("denied by rule `{id}`"),
                (None, None) => "no rule allows it".to_owned(),
            };
            let response = call
                .builder()
                .text(not_permitted(call.name(), &why))
                .state(Some(ResponseState::Reprompt))
                .status(403)
                .build();
            Err(Refused { result: call.entry(response), detail: why })
        }
        Err(error) => {
            let detail = error.to_string();
            let text = not_permitted(call.name(), "it could not be authorized right now");
            let response = call.builder().text(text).state(Some(ResponseState::Failure)).build();
            Err(Refused { result: call.entry(response), detail })
        }
    }
}

/// The one line a model reads for a call that is not permitted (`why` without control
/// characters).
pub fn not_permitted(name: &str, why: &str) -> String {
    let why: String = why.chars().filter(|c| !c.is_control()).collect();
    format!("The call to `{name}` is not permitted: {why}.")
}

/// What a path segment keeps as it is: RFC 3986's unreserved characters and `@`.
const PATH_SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'@');

/// The path of `POST /tools/{toolId}/authorize` for `tool_id` (the id percent-encoded
/// as one segment).
pub fn authorize_path(tool_id: &str) -> String {
    format!("/tools/{}/authorize", path_segment(tool_id))
}

/// `id` as one path segment, the rest percent-encoded.
fn path_segment(id: &str) -> String {
    percent_encoding::utf8_percent_encode(id, PATH_SEGMENT).to_string()
}

impl ControlCall {
    /// What call rules read as `call.function`: the function, or the `apiPath`.
    pub fn name(&self) -> &str {
        match &self.operation {
            Operation::Function(name) => name,
            Operation::Api { api_path, .. } => api_path,
        }
    }
}
