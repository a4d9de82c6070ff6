//! One call of a tool, decided (SPEC section 16): the tool's lifecycle, its access
//! rules (is it granted to this principal?), then its call rules on the call's
//! arguments typed by the tool's schema. The same engine as the guard of a tool
//! Lambda, for runtimes that execute calls themselves (return of control, MCP, inline).

use std::time::Instant;

use registry_access::{
    Decision, DecisionPoint, DecisionRecord, Effect, LogOnlyOutcome, Outcome, PreparedContext,
    RuleOutcome, RuleSet, ToolCall, WouldBe,
};
use registry_core::model::LifecycleStatus;
use registry_core::resolve::RuleCache;
use registry_core::{RequestContext, ToolDefinition, Violation};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::service::{Registry, ServiceError};

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
    /// The agent making the call (`request.agentId` for the rules).
    #[serde(default)]
    pub agent_id: Option<String>,
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
    /// Every rule's result (`?explain=true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<AuthorizeTrace>,
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

/// Evaluates `rules`, with every rule's result when `explain`.
fn run(
    explain: bool,
    evaluate: impl FnOnce() -> Decision,
    explained: impl FnOnce() -> (Decision, Vec<RuleOutcome>),
) -> (Decision, Vec<RuleOutcome>) {
    if explain { explained() } else { (evaluate(), Vec::new()) }
}

impl Registry {
    /// Decides one call of the live tool `tool_id` for the principal of the request
    /// (SPEC section 16); logs the decision.
    pub async fn authorize(
        &self,
        tool_id: &str,
        request: &AuthorizeRequest,
        explain: bool,
    ) -> Result<Authorization, ServiceError> {
        let tool: ToolDefinition = self.get(tool_id).await?;
        check_call(&tool, &request.call)?;
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
            trace,
        };
        let status = tool.lifecycle.as_ref().map(|l| l.status).unwrap_or_default();
        let rules: &RuleSet = &compiled.rules;
        let (access, access_rules) =
            run(explain, || rules.evaluate(&prepared), || rules.explain(&prepared));
        let authorization =
            if matches!(status, LifecycleStatus::Disabled | LifecycleStatus::Retired) {
                let mut a = answer(Stage::Lifecycle, &access, None);
                a.effect = Effect::Deny;
                a.outcome = Outcome::Deny;
                a.reason = format!("{status:?}").to_uppercase();
                a.rule_id = None;
                a
            } else if !access.is_allowed() {
                let trace = explain.then(|| AuthorizeTrace {
                    access: access.clone(),
                    access_rules,
                    call: None,
                    call_rules: Vec::new(),
                });
                answer(Stage::Access, &access, trace)
            } else {
                let call = ToolCall {
                    function: &request.call.function,
                    http_method: request.call.http_method.as_deref(),
                    arguments: &request.call.arguments,
                };
                let call_set = &compiled.call_rules;
                let (decision, call_rules) = run(
                    explain,
                    || call_set.evaluate_call(&prepared, &call),
                    || call_set.explain_call(&prepared, &call),
                );
                let trace = explain.then(|| AuthorizeTrace {
                    access: access.clone(),
                    access_rules,
                    call: Some(decision.clone()),
                    call_rules,
                });
                answer(Stage::Call, &decision, trace)
            };
        let micros = started.elapsed().as_secs_f64() * 1e6;
        self.log_authorization(&authorization, request, micros);
        Ok(authorization)
    }

    fn log_authorization(&self, a: &Authorization, request: &AuthorizeRequest, micros: f64) {
        if !self.decisions.is_on() {
            return;
        }
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let decision = Decision {
            effect: a.effect,
            reason: registry_access::ReasonCode::NoMatch,
            rule_index: None,
            rule_order: None,
            rule_id: a.rule_id.as_deref().map(Into::into),
            errors: Vec::new(),
            log_only: a.log_only.clone(),
            would_be: a.would_be.clone(),
        };
        let mut record =
            DecisionRecord::of(&decision, DecisionPoint::Authorize, a.decision_id.clone(), now);
        record.reason.clone_from(&a.reason);
        record.principal_id.clone_from(&request.context.user.user_id);
        record.agent_id.clone_from(&request.agent_id);
        record.tool_id = Some(a.tool_id.clone());
        record.tool_version = Some(a.version);
        record.function = Some(request.call.function.clone());
        record.eval_micros = micros;
        if self.decisions.with_values() {
            record.arguments = Some(Value::Object(request.call.arguments.clone()));
            record.context = serde_json::to_value(&request.context).ok();
        }
        self.decisions.record(record);
    }
}
