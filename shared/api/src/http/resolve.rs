//! `POST /agents/{id}/resolve`: the `InvokeInlineAgent` request (`inlineAgent`) of an
//! agent for the caller described in the body. A refused agent is a 403 problem carrying
//! the decision: `ACCESS_DENIED` (access rules) or `NOT_AVAILABLE` (lifecycle `disabled`
//! or `retired`, or rollout).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use registry_access::PreparedContext;
use registry_core::resolve::{
    AgentOutcome, AgentTrace, InlineAgent, LeftOut, Resolution, ResolveError, Warning,
};
use registry_core::rollout::RolloutDecision;
use registry_core::{Decision, LifecycleStatus, RequestContext};
use serde::Serialize;

use crate::http::auth::Reader;
use crate::http::json::{JsonText, json_ok, parse_json};
use crate::http::params::{Explain, ExplainParamsDoc, Id, SessionParam, SessionParamDoc};
use crate::http::problem::{Code, Problem};
use crate::http::responses::{BodyErrors, CallErrors, NotFound};
use crate::service::{ResolveContext, ResolveFailure, Resolver};

/// The 403 problem of a refused resolution: the usual problem fields (`code`
/// `ACCESS_DENIED` or `NOT_AVAILABLE`, `errors` always empty: the request itself was
/// valid) plus why.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefusalProblem {
    /// The problem: what was refused and why, in `detail`.
    #[serde(flatten)]
    pub problem: Problem,
    /// Machine-readable reason: the decision's reason code (`NO_MATCH`, `RULE_MATCH`,
    /// `ERROR`), `DISABLED`, `RETIRED`, or the rollout reason (`REGION_NOT_ALLOWED`,
    /// `NOT_BETA_ACCOUNT`, `OUT_OF_ROLLOUT`, `MISSING_STICKINESS_VALUE`).
    pub reason: String,
    /// The access decision (`ACCESS_DENIED`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    /// The rollout decision (`NOT_AVAILABLE` by rollout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollout: Option<RolloutDecision>,
    /// The decision trace for the agent.
    pub trace: AgentTrace,
}

/// Wire name of a serializable unit enum value (`NO_MATCH`, `OUT_OF_ROLLOUT`, ...).
fn wire_name(value: impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

impl RefusalProblem {
    /// The problem for a refusal; `None` for errors that are not refusals.
    pub fn from_error(err: &ResolveError) -> Option<Self> {
        let detail = err.to_string();
        let (code, reason, decision, rollout, trace) = match err {
            ResolveError::Denied { decision, trace } => (
                Code::AccessDenied,
                wire_name(decision.reason),
                Some(decision.as_ref().clone()),
                None,
                trace,
            ),
            ResolveError::NotAvailable { trace } => {
                let reason = match (trace.outcome, trace.rollout) {
                    (AgentOutcome::NotAvailable, Some(r)) => wire_name(r.reason),
                    (AgentOutcome::Disabled, _) => {
                        wire_name(LifecycleStatus::Disabled).to_uppercase()
                    }
                    (AgentOutcome::Retired, _) => {
                        wire_name(LifecycleStatus::Retired).to_uppercase()
                    }
                    (outcome, _) => wire_name(outcome),
                };
                (Code::NotAvailable, reason, None, trace.rollout, trace)
            }
            _ => return None,
        };
        Some(Self {
            problem: Problem::new(StatusCode::FORBIDDEN, code, detail),
            reason,
            decision,
            rollout,
            trace: trace.as_ref().clone(),
        })
    }
}

impl IntoResponse for RefusalProblem {
    fn into_response(self) -> Response {
        self.problem.respond(&self)
    }
}

/// The response of a failed resolution (or token request): its problem.
pub(crate) fn failure(err: ResolveFailure) -> Response {
    match err {
        ResolveFailure::Service(e) => Problem::from(e).into_response(),
        ResolveFailure::Refused(e) => match RefusalProblem::from_error(&e) {
            Some(p) => p.into_response(),
            None => {
                tracing::error!(error = %e, "unexpected refusal");
                Problem::internal().into_response()
            }
        },
    }
}

/// The body of a resolve request: the context's JSON text, parsed once by the handler
/// before the store is read (straight into a prepared context when the one-pass reader
/// takes it: a valid context, no repeated key, within the limits; else strictly into
/// the typed context, or the problem that says what is wrong).
pub struct ContextBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for ContextBody {
    type Rejection = Problem;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let JsonText(bytes) = JsonText::from_request(req, state).await?;
        Ok(Self(bytes))
    }
}

/// Resolve an agent for a caller: `inlineAgent` is Bedrock's `InvokeInlineAgent` request
/// (instruction, model, action groups, knowledge bases, one level of collaborators, the
/// agent's Bedrock settings) to send with `sessionId` and `inputText` added; beside it
/// `sessionId` (the one asked, else a new one: the principal token is bound to it),
/// `agentId`, `version`, warnings and the decision trace. Tools and collaborators the
/// caller may not use are left out and named in the trace.
#[utoipa::path(post, path = "/agents/{id}/resolve", tag = "resolution", request_body = RequestContext,
    params(("id" = String, Path, description = "Agent id"), ExplainParamsDoc, SessionParamDoc),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`inlineAgent`: the InvokeInlineAgent request to send with `sessionId` (beside it) and `inputText` added (its session attributes carry the principal token, a JWT bound to that session); `agentId`, `version`, warnings and `leftOut` beside it, and the trace with `?explain=true`", body = ResolveResponse),
        (status = 403, description = "`ACCESS_DENIED` (access rules) or `NOT_AVAILABLE` (lifecycle, rollout), with the decision", body = RefusalProblem, content_type = "application/problem+json"),
        CallErrors, BodyErrors, NotFound,
    ))]
pub async fn resolve_agent(
    State(resolver): State<Resolver>,
    _caller: Reader,
    Id(id): Id,
    Explain(explain): Explain,
    SessionParam(session): SessionParam,
    ContextBody(json): ContextBody,
) -> Response {
    let session = session.unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    let session = Some(session.as_str());
    let resolved = match PreparedContext::read_json(&json) {
        Some(prepared) => {
            resolver
                .resolve(&id, ResolveContext::Prepared(Box::new(prepared), &json), session)
                .await
        }
        None => match parse_json::<RequestContext>(&json) {
            Ok(context) => resolver.resolve(&id, &context, session).await,
            Err(problem) => return problem.into_response(),
        },
    };
    match resolved {
        Ok(resolution) => json_ok(&ResolveResponse::of(&resolution, explain)),
        Err(err) => failure(err),
    }
}

/// The answer of a resolve: the resolution, with the compact list of what was left
/// out, and the full trace only when asked (`?explain=true`).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResolveResponse<'a> {
    /// The `InvokeInlineAgent` request to send with `sessionId` and `inputText` added
    /// (its `inlineSessionState.sessionAttributes` carry the principal token).
    #[schema(value_type = InlineAgent)]
    pub inline_agent: &'a InlineAgent,
    /// The Bedrock `sessionId` to send it with: the one asked (`?sessionId=`), else a
    /// new one; the principal token's `sid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub session_id: Option<&'a str>,
    /// The agent resolved.
    #[schema(value_type = String)]
    pub agent_id: &'a str,
    /// Its version (revision) resolved.
    pub version: u64,
    /// Deprecations, skipped overrides, collaborators left out.
    #[schema(value_type = Vec<Warning>)]
    pub warnings: &'a [Warning],
    /// Tools and collaborators left out, and why.
    pub left_out: Vec<LeftOut>,
    /// Every decision taken, with its reason (`?explain=true` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<AgentTrace>)]
    pub trace: Option<&'a AgentTrace>,
}

impl<'a> ResolveResponse<'a> {
    /// The answer for `resolution`, with its trace when `explain`.
    pub fn of(resolution: &'a Resolution, explain: bool) -> Self {
        Self {
            inline_agent: &resolution.inline_agent,
            session_id: resolution.session_id.as_deref(),
            agent_id: &resolution.agent_id,
            version: resolution.version,
            warnings: &resolution.warnings,
            left_out: resolution.trace.left_out(),
            trace: explain.then_some(&resolution.trace),
        }
    }
}
