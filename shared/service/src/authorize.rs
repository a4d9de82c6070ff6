//! One call of a tool, decided (SPEC section 16) by `registry_policy::decide`, as the
//! guard of a tool Lambda decides it: the call checked against the tool's schema, then
//! its lifecycle, access rules, budgets and rates, call rules. For runtimes that
//! execute calls themselves (return of control, MCP, inline).

use std::time::Instant;

use registry_access::{
    DecisionPoint, Effect, LogOnlyOutcome, Outcome, PreparedContext, ToolCall, WouldBe,
};
use registry_core::resolve::RuleCache;
use registry_core::session::{SessionState, session_id_problem};
use registry_core::{AgentDefinition, Kind, RequestContext, ToolDefinition, Violation};
pub use registry_policy::{AuthorizeTrace, Stage};
use registry_policy::{
    Budget, CallDecision, CallRequest, Counting, DecideError, Grant, Stamp, decide,
    fetch_definitions, grant_of,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{CallPolicy, ServiceError};

/// The call to decide.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallInput {
    /// The function called (`apiPath` for API-schema tools).
    pub function: String,
    /// The HTTP method, for API-schema tools.
    #[serde(default)]
    pub http_method: Option<String>,
    /// The arguments by parameter name, as JSON values (rich parameters decoded).
    #[serde(default)]
    #[schema(value_type = Object)]
    pub arguments: Map<String, Value>,
}

/// The body of `POST /tools/{toolId}/authorize`.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthorizeRequest {
    /// The principal's request context, as for resolve (none: an empty context).
    /// Left out when the principal token is sent in `X-Registry-Principal`.
    #[serde(default)]
    pub context: Option<RequestContext>,
    /// The call.
    pub call: CallInput,
    /// The agent making the call (`request.agentId` for the rules; its `limits` apply
    /// with `sessionId`). Left out with `X-Registry-Principal`.
    #[serde(default)]
    pub agent_id: Option<String>,
    /// The Bedrock session the call belongs to: an allowed call is admitted and counts
    /// against the agent's session budgets (SPEC section 19). Needs `agentId`, of an
    /// agent that uses the tool; 2 to 100 characters of `[0-9a-zA-Z._:-]`, as Bedrock's.
    /// Left out with `X-Registry-Principal` (the token's session counts).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Whether the agent and session are a verified principal token's (set by
    /// [`AuthorizeRequest::as_principal`], never read from a body).
    #[serde(skip)]
    pub from_token: bool,
}

/// The answer of `authorize`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Authorization {
    /// The decision's id, as in the decision log.
    pub decision_id: String,
    /// The tool.
    pub tool_id: String,
    /// Its version decided on.
    pub version: u64,
    /// Allow or deny.
    pub effect: Effect,
    /// The effect, or what log-only rules would have made it (`would-deny`).
    pub outcome: Outcome,
    /// Which check decided.
    pub stage: Stage,
    /// The reason code (`NO_RULES`, `RULE_MATCH`, `NO_MATCH`, `ERROR`, `DISABLED`,
    /// `RETIRED`, `NOT_GRANTED`: the agent named does not grant the tool release,
    /// `LIMIT`, `BUDGETS_UNAVAILABLE`, `INVALID_SESSION`).
    pub reason: String,
    /// The deciding rule's id, when a rule decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<String>,
    /// The log-only rules reached, with what each gave.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub log_only: Vec<LogOnlyOutcome>,
    /// What the decision would have been with the log-only rules enforced, when that
    /// differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub would_be: Option<WouldBe>,
    /// The limit that refused the call (`maxToolCalls`, `maxCallsPerFunction`,
    /// `maxWallClockSeconds`, `rateLimit`, `runningTotal`, `contention`), at stage `limit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// Why, in one line, at stage `limit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Why the call is refused, as a model may read it (nothing internal; a rule's
    /// denial names the rule's description and id), on a denial only: what a tool's
    /// guard answers the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The session after the call, when it was admitted with a `sessionId`; absent
    /// otherwise (without a `sessionId`, session rules see an empty session and nothing
    /// is counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub session: Option<SessionState>,
    /// Every rule's result (`?explain=true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<AuthorizeTrace>,
}

impl Authorization {
    /// The answer for `decided`, decision `decision_id` of `tool`.
    fn of(decided: CallDecision, decision_id: String, tool: &ToolDefinition) -> Self {
        Self {
            why: decided.why(tool),
            decision_id,
            tool_id: tool.tool_id.clone(),
            version: tool.server.version.unwrap_or(0),
            effect: decided.effect,
            outcome: decided.outcome,
            stage: decided.stage,
            reason: decided.reason_code(DecisionPoint::Authorize).to_owned(),
            rule_id: decided.rule_id,
            log_only: decided.log_only,
            would_be: decided.would_be,
            limit: decided.limit.map(str::to_owned),
            message: decided.message,
            session: decided.session,
            trace: decided.trace,
        }
    }
}

/// Checks the call against the tool's schema: a known function, arguments valid.
fn check_call(tool: &ToolDefinition, call: &CallInput) -> Result<(), ServiceError> {
    let functions = tool.function_schema.as_deref().unwrap_or_default();
    let Some(function) = functions.iter().find(|f| f.name == call.function) else {
        let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
        return Err(ServiceError::invalid(
            "/call/function",
            format!(
                "`{}` is not a function of tool `{}`; its functions are {}",
                call.function,
                tool.tool_id,
                names.join(", ")
            ),
        ));
    };
    let args = Value::Object(call.arguments.clone());
    let errors = registry_types::validate_arguments(function, tool.types.as_ref(), &args);
    if errors.is_empty() {
        return Ok(());
    }
    Err(ServiceError::Invalid(
        errors
            .into_iter()
            .map(|e| Violation { path: format!("/call/arguments{}", e.path), message: e.message })
            .collect(),
    ))
}

/// Checks the ids a call names before anything reads, counts or logs them: `agentId` a
/// registry id, `sessionId` a Bedrock one (bounded, so counters and log lines are too).
pub(crate) fn check_ids(
    agent_id: Option<&str>,
    session_id: Option<&str>,
) -> Result<(), ServiceError> {
    if let Some(agent_id) = agent_id
        && !registry_core::validate::is_id(agent_id)
    {
        return Err(ServiceError::invalid(
            "/agentId",
            "must be an agent id: 1 to 128 characters from A-Z a-z 0-9 . _ : @ -, starting with a letter or digit",
        ));
    }
    match session_id.and_then(session_id_problem) {
        Some(problem) => Err(ServiceError::invalid("/sessionId", problem)),
        None => Ok(()),
    }
}

/// A verified principal token, as `authorize` takes it: who the call is for.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifiedPrincipal {
    /// The agent resolved (`act.sub`).
    pub agent_id: String,
    /// The request context the registry decided on (`ctx`).
    pub context: RequestContext,
    /// The session the token is bound to (`sid`).
    pub session_id: Option<String>,
}

/// `context` prepared for evaluation; its problems are violations under `/context`.
pub(crate) fn prepared(context: &RequestContext) -> Result<PreparedContext<'_>, ServiceError> {
    PreparedContext::new(context).map_err(|errors| {
        ServiceError::Invalid(
            errors
                .into_iter()
                .map(|e| Violation { path: format!("/context{}", e.path), message: e.message })
                .collect(),
        )
    })
}

impl AuthorizeRequest {
    /// This request as the principal of a verified token asks it: its agent, context and
    /// session. The body may then carry only `call`: each of `context`, `agentId` and
    /// `sessionId` it also sends is a violation (they come from the token alone).
    pub fn as_principal(self, principal: VerifiedPrincipal) -> Result<Self, ServiceError> {
        let sent = [
            ("/context", self.context.is_some()),
            ("/agentId", self.agent_id.is_some()),
            ("/sessionId", self.session_id.is_some()),
        ];
        let violations: Vec<Violation> = sent
            .into_iter()
            .filter(|(_, sent)| *sent)
            .map(|(path, _)| Violation {
                path: path.into(),
                message: "taken from the principal token in X-Registry-Principal: leave it out"
                    .into(),
            })
            .collect();
        if !violations.is_empty() {
            return Err(ServiceError::Invalid(violations));
        }
        Ok(Self {
            context: Some(principal.context),
            call: self.call,
            agent_id: Some(principal.agent_id),
            session_id: principal.session_id,
            from_token: true,
        })
    }
}

impl CallPolicy {
    /// Decides one call of the live tool `tool_id` for the principal of the request
    /// (SPEC section 16) with `registry_policy::decide`; logs the decision.
    pub async fn authorize(
        &self,
        tool_id: &str,
        request: &AuthorizeRequest,
        explain: bool,
    ) -> Result<Authorization, ServiceError> {
        let tool: ToolDefinition = self.catalog.get(tool_id).await?;
        check_call(&tool, &request.call)?;
        check_ids(request.agent_id.as_deref(), request.session_id.as_deref())?;
        let empty = RequestContext::default();
        let mut context = prepared(request.context.as_ref().unwrap_or(&empty))?;
        let started = Instant::now();
        let compiled = self.rules.tool(&tool).map_err(|e| {
            ServiceError::Internal(format!("stored tool `{}` is unusable: {e}", tool.tool_id))
        })?;
        let grant = match request.agent_id.as_deref() {
            Some(agent_id) => Some(self.grant(agent_id, &context, &tool).await?),
            None => None,
        };
        context.set_agent_id(request.agent_id.as_deref());
        let session = self.session_of(&tool, request).await?;
        let store = self.store();
        let budget = Budget {
            counters: store.as_ref(),
            known: &self.known,
            session: session.as_ref().map(|(key, agent)| (key.as_str(), agent.as_ref())),
        };
        let call = ToolCall {
            function: &request.call.function,
            http_method: request.call.http_method.as_deref(),
            arguments: &request.call.arguments,
        };
        let now_ms = chrono::Utc::now().timestamp_millis();
        let decided = decide(
            CallRequest {
                tool: &tool,
                rules: &compiled.rules,
                context: &mut context,
                call,
                grant: grant.as_ref(),
                explain,
                now_ms,
            },
            Counting::In(budget),
        )
        .await
        .map_err(|DecideError::Counters(e)| {
            ServiceError::from_store(Kind::Tool, &tool.tool_id, e)
        })?;
        let micros = registry_access::record::micros_since(started);
        let stamp = Stamp::at(now_ms);
        self.log_authorization(&decided, &stamp, &tool, request, micros);
        Ok(Authorization::of(decided, stamp.id, &tool))
    }

    /// What the agent `agent_id` grants the principal of `context` for `tool`
    /// (`registry_policy::grant_of` over the live definitions, read now): a missing or
    /// switched-off agent grants nothing (decision 98).
    async fn grant(
        &self,
        agent_id: &str,
        context: &PreparedContext<'_>,
        tool: &ToolDefinition,
    ) -> Result<Grant, ServiceError> {
        let store = self.store();
        let defs = fetch_definitions(store.as_ref(), agent_id)
            .await
            .map_err(|e| ServiceError::from_store(Kind::Agent, agent_id, e))?;
        Ok(grant_of(defs.as_ref(), self.rules.as_ref(), agent_id, context, &tool.tool_id))
    }

    /// The session the call counts in (with `agentId` and `sessionId`): its counter key
    /// and its agent; `None` without a `sessionId`. Ids a body names must be those of a
    /// live agent that uses the tool; a token's agent, when it is not live, is refused
    /// by the grant (`NOT_GRANTED`) before anything counts, never counted without
    /// limits.
    async fn session_of(
        &self,
        tool: &ToolDefinition,
        request: &AuthorizeRequest,
    ) -> Result<Option<(String, Option<AgentDefinition>)>, ServiceError> {
        match (&request.agent_id, &request.session_id) {
            (Some(agent_id), Some(session_id)) => {
                let key = registry_store::session_key(agent_id, session_id);
                let agent = self.catalog.get::<AgentDefinition>(agent_id).await;
                if request.from_token {
                    return match agent {
                        Ok(agent) => Ok(Some((key, Some(agent)))),
                        Err(ServiceError::NotFound { .. }) => Ok(Some((key, None))),
                        Err(other) => Err(other),
                    };
                }
                let agent = agent.map_err(|e| match e {
                    ServiceError::NotFound { .. } => {
                        ServiceError::invalid("/agentId", format!("no live agent `{agent_id}`"))
                    }
                    other => other,
                })?;
                if !agent.uses_tool(&tool.tool_id) {
                    return Err(ServiceError::invalid(
                        "/agentId",
                        format!(
                            "agent `{agent_id}` does not use tool `{}`: a session counts only the calls of its agent's tools",
                            tool.tool_id
                        ),
                    ));
                }
                Ok(Some((key, Some(agent))))
            }
            (None, Some(_)) => Err(ServiceError::invalid(
                "/agentId",
                "required with sessionId: budgets belong to an agent's session",
            )),
            _ => Ok(None),
        }
    }

    /// The decision's line in the decision log (point `authorize`).
    fn log_authorization(
        &self,
        decided: &CallDecision,
        stamp: &Stamp,
        tool: &ToolDefinition,
        request: &AuthorizeRequest,
        micros: f64,
    ) {
        if !self.decisions.is_on() {
            return;
        }
        let mut record = decided.record(DecisionPoint::Authorize, stamp.clone());
        record.principal_id = request.context.as_ref().and_then(|c| c.user.user_id.clone());
        record.agent_id.clone_from(&request.agent_id);
        record.tool_id = Some(tool.tool_id.clone());
        record.tool_version = Some(tool.server.version.unwrap_or(0));
        record.function = Some(request.call.function.clone());
        record.session_id.clone_from(&request.session_id);
        record.eval_micros = micros;
        if self.decisions.with_values() {
            record.arguments = Some(Value::Object(request.call.arguments.clone()));
            record.context = request.context.as_ref().and_then(|c| serde_json::to_value(c).ok());
        }
        self.decisions.record(record);
    }
}
