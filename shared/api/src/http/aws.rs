//! Routes that act on AWS: `POST /tools/{id}/verify` and `POST /tools/{id}/test-invoke`.

use axum::Json;
use axum::extract::State;
use registry_aws::{InvokeReport, TestInvoke, Verification, VerifyOptions};
use serde::Deserialize;

use crate::http::AppState;
use crate::http::auth::Editor;
use crate::http::json::JsonBody;
use crate::http::params::Id;
use crate::http::problem::Problem;

/// What `verify` checks beyond existence and permission.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VerifyRequest {
    /// Tag keys the function must carry.
    #[serde(default)]
    pub required_tags: Vec<String>,
}

/// Verifies the tool's Lambda: it exists and is active (GetFunction), Bedrock may invoke
/// it with a source account or ARN condition (GetPolicy), required tags (ListTags). Each
/// problem is a finding with its remedy, e.g. the `aws lambda add-permission` command.
#[utoipa::path(post, path = "/tools/{id}/verify", tag = "aws", request_body = VerifyRequest,
    params(("id" = String, Path, description = "Tool id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Findings (`ok`: no error among them)", body = Verification),
        (status = 400, description = "Not a Lambda tool, unknown field or malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an editor", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tool", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "`UPSTREAM_FAILED`: no AWS clients configured", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn verify_tool(
    State(state): State<AppState>,
    _caller: Editor,
    Id(id): Id,
    JsonBody(request): JsonBody<VerifyRequest>,
) -> Result<Json<Verification>, Problem> {
    let options = VerifyOptions { required_tags: request.required_tags };
    Ok(Json(state.registry.verify_tool(&id, &options).await?))
}

/// Invokes the tool's Lambda with the action-group event Bedrock would send for the
/// call (AWS's function-details form, arguments encoded as the registry exports them),
/// and reads the answer strictly as an action-group response.
#[utoipa::path(post, path = "/tools/{id}/test-invoke", tag = "aws", request_body = TestInvoke,
    params(("id" = String, Path, description = "Tool id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The answer: `responseState` (`REPROMPT`, `FAILURE`, or null), body, duration, event sent, raw answer", body = InvokeReport),
        (status = 400, description = "Unknown function or parameter, not a Lambda tool, or malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an editor", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tool", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "`UPSTREAM_FAILED`: Invoke failed, the function raised, or its answer is not an action-group response", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn test_invoke(
    State(state): State<AppState>,
    _caller: Editor,
    Id(id): Id,
    JsonBody(call): JsonBody<TestInvoke>,
) -> Result<Json<InvokeReport>, Problem> {
    Ok(Json(state.registry.test_invoke(&id, &call).await?))
}
