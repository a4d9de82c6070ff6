//! Resolution over the store: the agent with the tools it names exactly (one read), then
//! collaborators level by level (one batch for the agents of a level, one for their
//! tools), then the pure resolver of `registry_core::resolve` with the registry's
//! compiled-rule cache.

use std::time::Instant;

use registry_access::{
    ContextJsonError, DecisionPoint, DecisionRecord, Effect, PreparedContext, ReasonCode,
};
use registry_core::resolve::{AgentTrace, Resolution, ResolveError, Warning, WarningCode};
use registry_core::{Kind, RequestContext, Violation};

use crate::{Lines, PrincipalGrant, Resolver, ServiceError};
pub use registry_policy::Fetched;

/// Why a resolution did not produce a configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResolveFailure {
    /// Not found, bad context, store trouble: an ordinary service error.
    #[error(transparent)]
    Service(#[from] ServiceError),
    /// The agent is refused to this caller: [`ResolveError::Denied`] (access rules) or
    /// [`ResolveError::NotAvailable`] (lifecycle, rollout), with the trace.
    #[error(transparent)]
    Refused(ResolveError),
}

impl From<ResolveError> for ResolveFailure {
    fn from(err: ResolveError) -> Self {
        match err {
            ResolveError::NotFound { agent_id } => {
                Self::Service(ServiceError::NotFound { kind: Kind::Agent, id: agent_id })
            }
            ResolveError::InvalidContext(errors) => Self::Service(ServiceError::Invalid(
                errors
                    .into_iter()
                    .map(|e| Violation { path: e.path, message: e.message })
                    .collect(),
            )),
            ResolveError::InvalidRules { agent_id, message } => Self::Service(
                ServiceError::Internal(format!("stored agent `{agent_id}` is unusable: {message}")),
            ),
            refused @ (ResolveError::Denied { .. } | ResolveError::NotAvailable { .. }) => {
                Self::Refused(refused)
            }
        }
    }
}

impl Resolver {
    /// Resolves the live agent `agent_id` for the caller described by `ctx`
    /// (SPEC section 7). With a `session` (a Bedrock session id, checked by the caller),
    /// the resolution carries a principal token bound to it.
    pub async fn resolve(
        &self,
        agent_id: &str,
        ctx: &RequestContext,
        session: Option<&str>,
    ) -> Result<Resolution, ResolveFailure> {
        let defs = self.fetch_for_resolution(agent_id).await?;
        if session.is_some() {
            self.refresh_keys().await;
        }
        let started = Instant::now();
        let resolved = registry_core::resolve::resolve(&defs, self.rules.as_ref(), agent_id, ctx);
        let principal = ctx.user.user_id.clone();
        let json = match session.is_some() && self.principal_keys.is_some() {
            true => serde_json::to_vec(ctx).unwrap_or_default(),
            false => Vec::new(),
        };
        self.finish(resolved, &json, principal, started, session)
    }

    /// [`Resolver::resolve`] for a caller described by the JSON text of a request
    /// context, prepared straight from the text (see `PreparedContext::from_json`).
    pub async fn resolve_json(
        &self,
        agent_id: &str,
        json: &[u8],
        session: Option<&str>,
    ) -> Result<Resolution, ResolveFailure> {
        let defs = self.fetch_for_resolution(agent_id).await?;
        let prepared = match PreparedContext::from_json(json) {
            Ok(prepared) => prepared,
            Err(ContextJsonError::Limits(errors)) => {
                return Err(ResolveError::InvalidContext(errors).into());
            }
            Err(ContextJsonError::Json(e)) => {
                return Err(ServiceError::invalid("", e.to_string()).into());
            }
        };
        if session.is_some() {
            self.refresh_keys().await;
        }
        self.resolve_fetched(&defs, agent_id, prepared, json, session)
    }

    /// [`Resolver::resolve`] for a context the caller prepared from its JSON text
    /// `json` (parsed once, by the caller: `PreparedContext::read_json`).
    pub async fn resolve_prepared(
        &self,
        agent_id: &str,
        prepared: PreparedContext<'_>,
        json: &[u8],
        session: Option<&str>,
    ) -> Result<Resolution, ResolveFailure> {
        let defs = self.fetch_for_resolution(agent_id).await?;
        if session.is_some() {
            self.refresh_keys().await;
        }
        self.resolve_fetched(&defs, agent_id, prepared, json, session)
    }

    /// Resolves `agent_id` over `defs` for `prepared` (from the JSON text `json`).
    fn resolve_fetched(
        &self,
        defs: &Fetched,
        agent_id: &str,
        prepared: PreparedContext<'_>,
        json: &[u8],
        session: Option<&str>,
    ) -> Result<Resolution, ResolveFailure> {
        let started = Instant::now();
        let principal = prepared.user_id().map(str::to_owned);
        let resolved =
            registry_core::resolve::resolve_prepared(defs, self.rules.as_ref(), agent_id, prepared);
        self.finish(resolved, json, principal, started, session)
    }

    /// A resolution's last steps: with a `session`, the principal token added
    /// (`context_json` is the context's checked JSON text); every decision logged.
    fn finish(
        &self,
        resolved: Result<Resolution, ResolveError>,
        context_json: &[u8],
        principal: Option<String>,
        started: Instant,
        session: Option<&str>,
    ) -> Result<Resolution, ResolveFailure> {
        let micros = registry_access::record::micros_since(started);
        match resolved {
            Ok(mut resolution) => {
                if let Some(session) = session {
                    self.attach_principal(
                        &mut resolution,
                        context_json,
                        principal.as_deref(),
                        session,
                    );
                }
                if self.decisions.is_on() {
                    self.log_trace(&resolution.trace, principal.as_deref(), micros);
                }
                Ok(resolution)
            }
            Err(err) => {
                if let (ResolveError::Denied { trace, .. }, true) = (&err, self.decisions.is_on()) {
                    self.log_trace(trace, principal.as_deref(), micros);
                }
                Err(err.into())
            }
        }
    }

    /// Binds `resolution` to `session` and adds its principal token to the session
    /// attributes, or a warning when none can be issued (too large a context).
    fn attach_principal(
        &self,
        resolution: &mut Resolution,
        context_json: &[u8],
        user_id: Option<&str>,
        session: &str,
    ) {
        resolution.session_id = Some(session.to_owned());
        if self.principal_keys.is_none() {
            return;
        }
        let grant = PrincipalGrant {
            agent_id: &resolution.agent_id,
            user_id,
            session_id: session,
            context_json,
        };
        match self.issue_principal(&grant) {
            Ok(token) => {
                resolution
                    .inline_agent
                    .inline_session_state
                    .get_or_insert_with(Default::default)
                    .session_attributes
                    .insert(registry_token::SESSION_ATTRIBUTE.to_owned(), token);
            }
            Err(e) => resolution.warnings.push(Warning {
                code: WarningCode::ContextNotSigned,
                agent_id: resolution.agent_id.clone(),
                tool_id: None,
                message: format!("no principal token was issued ({e}): guarded tools will refuse this session's calls; send a smaller context"),
                deprecation_date: None,
                migration_path: None,
            }),
        }
    }

    /// One decision line per access decision of `trace` (the agent, each tool, each
    /// collaborator, recursively), handed to the log together.
    fn log_trace(&self, trace: &AgentTrace, principal: Option<&str>, micros: f64) {
        let Some(mut lines) = self.decisions.lines() else { return };
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let undecided = registry_core::Decision::new(Effect::Deny, ReasonCode::NoMatch);
        let mut record = DecisionRecord::of(&undecided, DecisionPoint::Resolve, String::new(), now);
        record.principal_id = principal.map(str::to_owned);
        record.eval_micros = micros;
        trace_lines(trace, &mut record, &mut lines);
    }

    /// Everything resolving `agent_id` may need: the agent, its tools (override
    /// targets included) and its collaborators down to the depth limit, with theirs
    /// (`registry_policy::fetch_definitions`, the one reader every point shares). The
    /// definitions are shared with the store, not copied.
    pub async fn fetch_for_resolution(&self, agent_id: &str) -> Result<Fetched, ServiceError> {
        registry_policy::fetch_definitions(self.store().as_ref(), agent_id)
            .await
            .map_err(|e| ServiceError::from_store(Kind::Agent, agent_id, e))?
            .ok_or_else(|| ServiceError::NotFound { kind: Kind::Agent, id: agent_id.to_owned() })
    }
}

/// The lines of `trace`'s decisions, each `record` with the decision and what it is
/// about set (one record reused: its strings keep their buffers).
fn trace_lines(trace: &AgentTrace, record: &mut DecisionRecord, lines: &mut Lines<'_>) {
    let mut push = |record: &mut DecisionRecord, decision: &registry_core::Decision| {
        record.set_decision(decision);
        record.decision_id.clear();
        let id = uuid::Uuid::now_v7();
        record.decision_id.push_str(id.hyphenated().encode_lower(&mut uuid::Uuid::encode_buffer()));
        lines.push(record);
    };
    record.agent_id = Some(trace.agent_id.clone());
    record.agent_version = trace.version;
    record.tool_id = None;
    record.tool_version = None;
    if let Some(decision) = &trace.access {
        push(record, decision);
    }
    for tool in &trace.tools {
        if let Some(decision) = &tool.access {
            let tool_id = record.tool_id.get_or_insert_default();
            tool_id.clear();
            tool_id.push_str(&tool.tool_id);
            record.tool_version = tool.version;
            push(record, decision);
        }
    }
    for collaborator in &trace.collaborators {
        trace_lines(collaborator, record, lines);
    }
}
