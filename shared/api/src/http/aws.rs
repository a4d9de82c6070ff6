//! Routes that act on AWS: `POST /tools/{id}/verify`, `POST /tools/{id}/test-invoke`,
//! `POST /agents/{id}/publish`, `GET` and `DELETE /agents/{id}/publication`.

use axum::Json;
use axum::extract::State;
use registry_aws::{InvokeReport, TestInvoke, Verification, VerifyOptions};
use serde::Deserialize;

use crate::service::{
    Drift, ImportReport, ImportRequest, PublishReport, PublishRequest, Publishing,
};

use crate::http::auth::{Admin, Editor, Reader};
use crate::http::json::JsonBody;
use crate::http::params::Id;
use crate::http::problem::Problem;
use crate::http::responses::{
    BodyErrors, CallErrors, Conflict, Forbidden, NotFound, UpstreamErrors, VersionMismatch,
};

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
        CallErrors, BodyErrors, Forbidden, NotFound, UpstreamErrors,
    ))]
pub async fn verify_tool(
    State(publishing): State<Publishing>,
    _caller: Editor,
    Id(id): Id,
    JsonBody(request): JsonBody<VerifyRequest>,
) -> Result<Json<Verification>, Problem> {
    let options = VerifyOptions { required_tags: request.required_tags };
    Ok(Json(publishing.verify_tool(&id, &options).await?))
}

/// Invokes the tool's Lambda with the action-group event Bedrock would send for the
/// call (AWS's function-details form, arguments encoded as the registry exports them),
/// and reads the answer strictly as an action-group response.
#[utoipa::path(post, path = "/tools/{id}/test-invoke", tag = "aws", request_body = TestInvoke,
    params(("id" = String, Path, description = "Tool id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The answer: `responseState` (`REPROMPT`, `FAILURE`, or null), body, duration, event sent, raw answer", body = InvokeReport),
        CallErrors, BodyErrors, Forbidden, NotFound, UpstreamErrors,
    ))]
pub async fn test_invoke(
    State(publishing): State<Publishing>,
    _caller: Editor,
    Id(id): Id,
    JsonBody(call): JsonBody<TestInvoke>,
) -> Result<Json<InvokeReport>, Problem> {
    Ok(Json(publishing.test_invoke(&id, &call).await?))
}

/// Publishes the agent to Bedrock Agents as the resolution for one audience (the
/// request context given, else the current publication's): plans the calls against
/// what Bedrock holds, then (unless `dryRun`) makes them, prepares the agent and moves
/// the `registry` alias to the new version. Publishing again with nothing changed
/// makes no mutating call. Collaborators must be published first.
#[utoipa::path(post, path = "/agents/{id}/publish", tag = "aws", request_body = PublishRequest,
    params(("id" = String, Path, description = "Agent id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The plan (made, unless a dry run) and the publication", body = PublishReport),
        CallErrors, BodyErrors, Forbidden, NotFound, VersionMismatch, UpstreamErrors,
        (status = 400, description = "Invalid input: no audience on a first publish, audience refused, unpublished collaborator, setting a persistent agent cannot take, malformed JSON", body = Problem, content_type = "application/problem+json"),
    ))]
pub async fn publish_agent(
    State(publishing): State<Publishing>,
    Admin(caller): Admin,
    Id(id): Id,
    JsonBody(request): JsonBody<PublishRequest>,
) -> Result<Json<PublishReport>, Problem> {
    Ok(Json(publishing.publish(&caller, &id, request).await?))
}

/// Drift check: whether Bedrock still holds what publishing the agent now would make,
/// with the calls a publish would make.
#[utoipa::path(get, path = "/agents/{id}/publication", tag = "aws",
    params(("id" = String, Path, description = "Agent id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The publication, `inSync`, and the calls a publish would make", body = Drift),
        CallErrors, NotFound, UpstreamErrors,
    ))]
pub async fn agent_publication(
    State(publishing): State<Publishing>,
    _caller: Reader,
    Id(id): Id,
) -> Result<Json<Drift>, Problem> {
    Ok(Json(publishing.publication(&id).await?))
}

/// Unpublishes the agent: deletes its Bedrock agent (with its aliases) and clears the
/// record. Bedrock refuses while the agent is in use, e.g. as a collaborator.
#[utoipa::path(delete, path = "/agents/{id}/publication", tag = "aws",
    params(("id" = String, Path, description = "Agent id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Unpublished"),
        CallErrors, Forbidden, NotFound, Conflict, UpstreamErrors,
    ))]
pub async fn unpublish_agent(
    State(publishing): State<Publishing>,
    Admin(caller): Admin,
    Id(id): Id,
) -> Result<axum::http::StatusCode, Problem> {
    publishing.unpublish(&caller, &id).await?;
    Ok(axum::http::StatusCode::NO_CONTENT)
}

/// Reads a Bedrock agent (settings, action groups, knowledge bases, collaborators) into
/// registry definitions, reporting what could not be represented and what a write would
/// refuse; with `apply`, writes them (tools first) when nothing is refused.
#[utoipa::path(post, path = "/import/bedrock", tag = "aws", request_body = ImportRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The definitions, `unrepresented`, `problems`, and whether they were written", body = ImportReport),
        CallErrors, BodyErrors, Forbidden, UpstreamErrors,
    ))]
pub async fn import_bedrock(
    State(publishing): State<Publishing>,
    Editor(caller): Editor,
    JsonBody(request): JsonBody<ImportRequest>,
) -> Result<Json<ImportReport>, Problem> {
    Ok(Json(publishing.import_bedrock(&caller, &request).await?))
}
