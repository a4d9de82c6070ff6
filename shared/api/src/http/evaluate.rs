//! `POST /access/evaluate`: dry-run a rule list against a context, storing nothing.

use axum::Json;
use axum::extract::State;

use crate::http::auth::Reader;
use crate::http::json::JsonBody;
use crate::http::problem::Problem;
use crate::http::responses::{BodyErrors, CallErrors};
use crate::service::{CallPolicy, EvaluateRequest, Evaluation};

/// Evaluate access rules against a context without storing anything: the decision
/// (effect, deciding rule, reason code, errors) and each rule's result. Rules that do
/// not compile are a 400 at `/rules/<i>/condition` with the position and a hint.
#[utoipa::path(post, path = "/access/evaluate", tag = "access", request_body = EvaluateRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The decision and every rule's result", body = Evaluation),
        CallErrors, BodyErrors,
    ))]
pub async fn evaluate_access(
    State(calls): State<CallPolicy>,
    _caller: Reader,
    JsonBody(request): JsonBody<EvaluateRequest>,
) -> Result<Json<Evaluation>, Problem> {
    Ok(Json(calls.evaluate_access(request).await?))
}
