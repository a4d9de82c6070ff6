//! One call of a tool, decided (SPEC section 16): the tool's lifecycle, its access
//! rules (is it granted to this principal?), then its call rules on the call's
//! arguments typed by the tool's schema. The same engine as the guard of a tool
//! Lambda, for runtimes that execute calls themselves (return of control, MCP, inline).

use std::time::Instant;

use registry_access::SessionView;
use registry_access::{
    Decision, DecisionPoint, DecisionRecord, Effect, LogOnlyOutcome, Outcome, PreparedContext,
    RuleOutcome, RuleSet, ToolCall, WouldBe,
};
use registry_core::model::LifecycleStatus;
use registry_core::resolve::RuleCache;
use registry_core::session::{SessionState, session_id_problem};
use registry_core::{AgentDefinition, Kind, RequestContext, ToolDefinition, Violation};
use registry_store::StoreError;
use registry_store::budget::{Admission, Verdict, admit, rate_of, session_ttl_seconds};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::service::{CallPolicy, ServiceError};

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
    /// The principal's request context, as for resolve.
    #[serde(default)]
    pub context: RequestContext,
    /// The call.
    pub call: CallInput,
    /// The agent making the call (`request.agentId` for the rules; its `limits` apply
    /// with `sessionId`).
    #[serde(default)]
    pub agent_id: Option<String>,
    /// The Bedrock session the call belongs to: an allowed call is admitted and counts
    /// against the agent's session budgets (SPEC section 19). Needs `agentId`, of an
    /// agent that uses the tool; 2 to 100 characters of `[0-9a-zA-Z._:-]`, as Bedrock's.
    #[serde(default)]
    pub session_id: Option<String>,
}

/// Which check decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// The tool is disabled or retired.
    Lifecycle,
    /// The tool's access rules deny the principal.
    Access,
    /// The call rules decided (or there are none: allowed).
    Call,
    /// A session budget of the agent or the tool's rate limit was spent.
    Limit,
}

/// Every rule's result, on request (`?explain=true`).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizeTrace {
    /// The access decision.
    pub access: Decision,
    /// Each access rule's result, in evaluation order.
    pub access_rules: Vec<RuleOutcome>,
    /// The call decision, when the access rules allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<Decision>,
    /// Each call rule's result, in evaluation order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub call_rules: Vec<RuleOutcome>,
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
    /// `RETIRED`).
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

/// How the call stage ended.
enum Counted {
    /// The call rules decided; the session after an admitted call.
    Decided(Decision, Option<SessionState>),
    /// A limit refused the call before the rules.
    Limited(&'static str, String),
}

/// `answer` turned into a refusal for `reason` that no rule made.
fn refused(mut answer: Authorization, reason: String, message: Option<String>) -> Authorization {
    answer.effect = Effect::Deny;
    answer.outcome = Outcome::Deny;
    answer.reason = reason;
    answer.rule_id = None;
    answer.log_only = Vec::new();
    answer.would_be = None;
    answer.message = message;
    answer
}

/// The counters one authorize reads and writes.
struct Budget {
    /// The session's counter key and its agent.
    session: Option<(String, AgentDefinition)>,
    /// The rate window's counter key and the tool's rate.
    rate: Option<(String, registry_core::RateLimit)>,
}

impl Budget {
    /// The admission of `request`'s call, keeping the running totals in `totals`.
    fn admission<'a>(
        &'a self,
        request: &'a AuthorizeRequest,
        totals: &'a [String],
    ) -> Admission<'a> {
        let agent = self.session.as_ref().map(|(_, agent)| agent);
        Admission {
            session: self.session.as_ref().map(|(key, _)| key.as_str()),
            limits: agent.and_then(|a| a.limits.as_ref()),
            rate: self.rate.as_ref().map(|(key, rate)| (key.as_str(), rate)),
            function: &request.call.function,
            arguments: &request.call.arguments,
            totals,
            session_ttl_seconds: session_ttl_seconds(agent),
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
fn check_ids(request: &AuthorizeRequest) -> Result<(), ServiceError> {
    if let Some(agent_id) = &request.agent_id
        && !registry_core::validate::is_id(agent_id)
    {
        return Err(ServiceError::invalid(
            "/agentId",
            "must be an agent id: 1 to 128 characters from A-Z a-z 0-9 . _ : @ -, starting with a letter or digit",
        ));
    }
    match request.session_id.as_deref().and_then(session_id_problem) {
        Some(problem) => Err(ServiceError::invalid("/sessionId", problem)),
        None => Ok(()),
    }
}

/// Evaluates `rules`, with every rule's result when `explain`.
fn run(
    explain: bool,
    evaluate: impl FnOnce() -> Decision,
    explained: impl FnOnce() -> (Decision, Vec<RuleOutcome>),
) -> (Decision, Vec<RuleOutcome>) {
    if explain { explained() } else { (evaluate(), Vec::new()) }
}

impl CallPolicy {
    /// Decides one call of the live tool `tool_id` for the principal of the request
    /// (SPEC section 16); logs the decision.
    pub async fn authorize(
        &self,
        tool_id: &str,
        request: &AuthorizeRequest,
        explain: bool,
    ) -> Result<Authorization, ServiceError> {
        let tool: ToolDefinition = self.catalog.get(tool_id).await?;
        check_call(&tool, &request.call)?;
        check_ids(request)?;
        let mut prepared = PreparedContext::new(&request.context).map_err(|errors| {
            ServiceError::Invalid(
                errors
                    .into_iter()
                    .map(|e| Violation { path: format!("/context{}", e.path), message: e.message })
                    .collect(),
            )
        })?;
        let started = Instant::now();
        let compiled = self.rules.tool(&tool).map_err(|e| {
            ServiceError::Internal(format!("stored tool `{}` is unusable: {e}", tool.tool_id))
        })?;
        prepared.set_agent_id(request.agent_id.as_deref());
        prepared.set_tool_id(Some(&tool.tool_id));
        let version = tool.server.version.unwrap_or(0);
        let answer = |stage, decision: &Decision, trace| Authorization {
            decision_id: uuid::Uuid::now_v7().to_string(),
            tool_id: tool.tool_id.clone(),
            version,
            effect: decision.effect,
            outcome: decision.outcome(),
            stage,
            reason: decision.reason.as_str().to_owned(),
            rule_id: decision.rule_id.as_deref().map(str::to_owned),
            log_only: decision.log_only.clone(),
            would_be: decision.would_be.clone(),
            limit: None,
            message: None,
            session: None,
            trace,
        };
        let status = tool.lifecycle.as_ref().map(|l| l.status).unwrap_or_default();
        let rules: &RuleSet = &compiled.rules;
        let (access, access_rules) =
            run(explain, || rules.evaluate(&prepared), || rules.explain(&prepared));
        let trace = |call: Option<Decision>, call_rules| {
            explain.then(|| AuthorizeTrace {
                access: access.clone(),
                access_rules: access_rules.clone(),
                call,
                call_rules,
            })
        };
        let authorization =
            if matches!(status, LifecycleStatus::Disabled | LifecycleStatus::Retired) {
                let reason = format!("{status:?}").to_uppercase();
                refused(answer(Stage::Lifecycle, &access, None), reason, None)
            } else if !access.is_allowed() {
                answer(Stage::Access, &access, trace(None, Vec::new()))
            } else {
                let call = ToolCall {
                    function: &request.call.function,
                    http_method: request.call.http_method.as_deref(),
                    arguments: &request.call.arguments,
                };
                let call_set = &compiled.call_rules;
                let mut explained = Vec::new();
                let mut evaluate = |session: SessionView<'_>| {
                    if explain {
                        let (decision, rules) = call_set.explain_call_in(&prepared, &call, session);
                        explained = rules;
                        decision
                    } else {
                        call_set.evaluate_call_in(&prepared, &call, session)
                    }
                };
                let outcome = match self.budget(&tool, request).await? {
                    None => Counted::Decided(evaluate(SessionView::default()), None),
                    Some(budget) => {
                        let admission = budget.admission(request, call_set.session_totals());
                        let now_ms = chrono::Utc::now().timestamp_millis();
                        let on_session = |d: &Decision| call_set.decided_on_session(d);
                        let store = self.store();
                        let admitted = admit(
                            store.as_ref(),
                            &self.known,
                            &admission,
                            now_ms,
                            &mut evaluate,
                            on_session,
                        );
                        match admitted.await {
                            Ok(Verdict::Admitted { decision, session }) => {
                                Counted::Decided(decision, session)
                            }
                            Ok(Verdict::Denied { decision }) => Counted::Decided(decision, None),
                            Ok(Verdict::Limited(hit)) => Counted::Limited(hit.limit, hit.message),
                            Err(StoreError::VersionMismatch { .. }) => Counted::Limited(
                                "contention",
                                "the session is busy; try the call again".to_owned(),
                            ),
                            Err(e) => {
                                return Err(ServiceError::from_store(Kind::Tool, &tool.tool_id, e));
                            }
                        }
                    }
                };
                match outcome {
                    Counted::Decided(decision, session) => Authorization {
                        session,
                        ..answer(Stage::Call, &decision, trace(Some(decision.clone()), explained))
                    },
                    Counted::Limited(limit, message) => {
                        let mut a = refused(
                            answer(Stage::Limit, &access, trace(None, Vec::new())),
                            "LIMIT".to_owned(),
                            Some(message),
                        );
                        a.limit = Some(limit.to_owned());
                        a
                    }
                }
            };
        let micros = registry_access::record::micros_since(started);
        self.log_authorization(&authorization, request, micros);
        Ok(authorization)
    }

    /// What counts the call against a budget: the session (with `agentId` and
    /// `sessionId`) and the tool's rate limit; `None` when neither applies.
    async fn budget(
        &self,
        tool: &ToolDefinition,
        request: &AuthorizeRequest,
    ) -> Result<Option<Budget>, ServiceError> {
        let session = match (&request.agent_id, &request.session_id) {
            (Some(agent_id), Some(session_id)) => {
                let agent: AgentDefinition =
                    self.catalog.get(agent_id).await.map_err(|e| match e {
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
                Some((registry_store::session_key(agent_id, session_id), agent))
            }
            (None, Some(_)) => {
                return Err(ServiceError::invalid(
                    "/agentId",
                    "required with sessionId: budgets belong to an agent's session",
                ));
            }
            _ => None,
        };
        let rate = rate_of(
            tool,
            request.context.user.user_id.as_deref(),
            request.context.account.account_id.as_deref(),
        )
        .map(|(key, rate)| (key, rate.clone()));
        if session.is_none() && rate.is_none() {
            return Ok(None);
        }
        Ok(Some(Budget { session, rate }))
    }

    fn log_authorization(&self, a: &Authorization, request: &AuthorizeRequest, micros: f64) {
        if !self.decisions.is_on() {
            return;
        }
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let decision = Decision {
            rule_id: a.rule_id.as_deref().map(Into::into),
            log_only: a.log_only.clone(),
            would_be: a.would_be.clone(),
            ..Decision::new(a.effect, registry_access::ReasonCode::NoMatch)
        };
        let mut record =
            DecisionRecord::of(&decision, DecisionPoint::Authorize, a.decision_id.clone(), now);
        record.reason.clone_from(&a.reason);
        record.principal_id.clone_from(&request.context.user.user_id);
        record.agent_id.clone_from(&request.agent_id);
        record.tool_id = Some(a.tool_id.clone());
        record.tool_version = Some(a.version);
        record.function = Some(request.call.function.clone());
        record.limit.clone_from(&a.limit);
        record.session_id.clone_from(&request.session_id);
        record.eval_micros = micros;
        if self.decisions.with_values() {
            record.arguments = Some(Value::Object(request.call.arguments.clone()));
            record.context = serde_json::to_value(&request.context).ok();
        }
        self.decisions.record(record);
    }
}
