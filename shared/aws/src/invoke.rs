//! Test-invoking a tool's Lambda with the event Bedrock would send, and reading the
//! answer strictly as an action-group response.

use std::collections::BTreeMap;
use std::time::Instant;

use aws_sdk_lambda::error::DisplayErrorContext;
use aws_sdk_lambda::primitives::Blob;
use bedrock_action_group::{ActionGroupResponse, ResponseState};
use registry_core::{RequestContext, ToolDefinition, Violation};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Aws;
use crate::error::AwsError;
use crate::event::function_event;
use crate::verify::lambda_arn;

/// A test invocation: which function of the tool, with which arguments.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TestInvoke {
    /// Function name in the tool's function schema.
    pub function: String,
    /// Arguments by parameter name, as JSON values.
    #[serde(default)]
    pub arguments: Map<String, Value>,
    /// Session attributes to send (the registry adds `registryPrincipal`, the principal
    /// token of `context`, `agentId` and `sessionId`, unless this names one).
    #[serde(default)]
    pub session_attributes: BTreeMap<String, String>,
    /// The caller the call is made for, as for resolve (default: the test principal,
    /// `{"user": {"userId": "registry-test-invoke"}}`).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub context: Option<RequestContext>,
    /// The agent making the call (default `registry-test-invoke`); its `limits` count
    /// with `sessionId`.
    #[serde(default)]
    pub agent_id: Option<String>,
    /// The Bedrock session of the call (the event's `sessionId` and the token's
    /// session), so calls count against the agent's session budgets; needs `agentId`.
    /// Default: a session of this registry process, in which nothing counts.
    #[serde(default)]
    pub session_id: Option<String>,
}

/// What the function answered.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvokeReport {
    /// `REPROMPT` or `FAILURE`; `null` for a normal answer.
    pub response_state: Option<String>,
    /// The response body text.
    pub body: String,
    /// Invocation time as measured by the registry, in milliseconds.
    pub duration_ms: u64,
    /// The event sent.
    pub event: Value,
    /// The function's answer as it came.
    pub raw: Value,
}

impl Aws {
    /// Invokes `tool`'s Lambda with the event Bedrock would send for `call`, and checks
    /// the answer is a response to that event.
    pub async fn test_invoke(
        &self,
        tool: &ToolDefinition,
        call: &TestInvoke,
    ) -> Result<InvokeReport, AwsError> {
        let arn = lambda_arn(tool)?;
        let session = call
            .session_id
            .clone()
            .unwrap_or_else(|| format!("registry-test-{}", std::process::id()));
        let event = function_event(
            tool,
            &call.function,
            &call.arguments,
            call.session_attributes.clone(),
            session,
        )
        .map_err(AwsError::Invalid)?;
        let event =
            serde_json::to_value(&event).map_err(|e| AwsError::BadResponse(e.to_string()))?;
        let payload =
            serde_json::to_vec(&event).map_err(|e| AwsError::BadResponse(e.to_string()))?;
        let started = Instant::now();
        let out = self
            .invoker()
            .await
            .invoke()
            .function_name(self.function_ref(
                &arn,
                self.endpoints.lambda_invoke.as_ref().or(self.endpoints.lambda.as_ref()),
            ))
            .payload(Blob::new(payload))
            .send()
            .await
            .map_err(|e| AwsError::Aws(format!("Invoke failed: {}", DisplayErrorContext(&e))))?;
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let bytes = out.payload().map(|b| b.as_ref()).unwrap_or_default();
        let raw: Value = serde_json::from_slice(bytes).map_err(|e| {
            AwsError::BadResponse(format!("not JSON ({e}): {}", String::from_utf8_lossy(bytes)))
        })?;
        if let Some(kind) = out.function_error() {
            return Err(AwsError::BadResponse(format!(
                "the function raised an error ({kind}): {raw}"
            )));
        }
        let response: ActionGroupResponse = serde_json::from_value(raw.clone())
            .map_err(|e| AwsError::BadResponse(e.to_string()))?;
        check_echo(&response, &raw, tool, &call.function)?;
        Ok(InvokeReport {
            response_state: response.state().map(|s| match s {
                ResponseState::Reprompt => "REPROMPT".to_owned(),
                ResponseState::Failure => "FAILURE".to_owned(),
            }),
            body: response.body().to_owned(),
            duration_ms,
            event,
            raw,
        })
    }
}

/// The response must answer the event: same message version, action group and function.
fn check_echo(
    r: &ActionGroupResponse,
    raw: &Value,
    tool: &ToolDefinition,
    function: &str,
) -> Result<(), AwsError> {
    let mut problems: Vec<Violation> = Vec::new();
    if r.message_version != "1.0" {
        problems.push(Violation {
            path: "/messageVersion".into(),
            message: format!("is {:?}, not \"1.0\"", r.message_version),
        });
    }
    if r.action_group() != tool.name {
        problems.push(Violation {
            path: "/response/actionGroup".into(),
            message: format!("is {:?}, the event's is {:?}", r.action_group(), tool.name),
        });
    }
    let answered = &raw["response"]["function"];
    if answered != function {
        problems.push(Violation {
            path: "/response/function".into(),
            message: format!("is {answered}, the event's is {function:?}"),
        });
    }
    if problems.is_empty() {
        Ok(())
    } else {
        let text: Vec<String> =
            problems.iter().map(|p| format!("{} {}", p.path, p.message)).collect();
        Err(AwsError::BadResponse(text.join("; ")))
    }
}
