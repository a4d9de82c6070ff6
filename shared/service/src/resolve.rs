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

/// The request context a resolution is for, in the form its caller has it.
#[derive(Debug)]
pub enum ResolveContext<'a> {
    /// A typed context.
    Typed(&'a RequestContext),
    /// A context's JSON text, prepared once the definitions are read (see
    /// `PreparedContext::from_json`; a text that is no context is an invalid request).
    Json(&'a [u8]),
    /// A context the caller prepared from the JSON text beside it (parsed once, by the
    /// caller: `PreparedContext::read_json`); boxed, as it is far larger than the others.
    Prepared(Box<PreparedContext<'a>>, &'a [u8]),
}

impl<'a> From<&'a RequestContext> for ResolveContext<'a> {
    fn from(context: &'a RequestContext) -> Self {
        Self::Typed(context)
    }
}

impl Resolver {
    /// Resolves the live agent `agent_id` for the caller described by `context`
    /// (SPEC section 7): the one entry point of every resolution. With a `session` (a
    /// Bedrock session id, checked by the caller), the resolution carries a principal
    /// token bound to it: the one issued before for the same session, context, grant and
    /// signing key while it is valid long enough (decision 112), else a new one.
    pub async fn resolve<'c>(
        &self,
        agent_id: &str,
        context: impl Into<ResolveContext<'c>>,
        session: Option<&str>,
    ) -> Result<Resolution, ResolveFailure> {
        let context = context.into();
        let defs = self.fetch_for_resolution(agent_id).await?;
        let signs = session.is_some() && self.principal_keys.is_some();
        let typed_json;
        let (prepared, json): (PreparedContext<'_>, &[u8]) = match context {
            ResolveContext::Typed(ctx) => {
                let prepared = PreparedContext::new(ctx).map_err(ResolveError::InvalidContext)?;
                typed_json = match signs {
                    true => serde_json::to_vec(ctx).unwrap_or_default(),
                    false => Vec::new(),
                };
                (prepared, &typed_json)
            }
            ResolveContext::Json(json) => match PreparedContext::from_json(json) {
                Ok(prepared) => (prepared, json),
                Err(ContextJsonError::Limits(errors)) => {
                    return Err(ResolveError::InvalidContext(errors).into());
                }
                Err(ContextJsonError::Json(e)) => {
                    return Err(ServiceError::invalid("", e.to_string()).into());
                }
            },
            ResolveContext::Prepared(prepared, json) => (*prepared, json),
        };
        if session.is_some() {
            self.refresh_keys().await;
        }
        let started = Instant::now();
        let principal = prepared.user_id().map(str::to_owned);
        let resolved = registry_core::resolve::resolve_prepared(
            &defs,
            self.rules.as_ref(),
            agent_id,
            prepared,
        );
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
        let mut granted = Vec::new();
        grant_of(&resolution.trace, &mut granted);
        match self.principal_for_session(&grant, &granted) {
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

/// What `trace` grants, as text: each agent and tool with its version and outcome,
/// collaborators nested; a principal token is reused only while it is the same.
fn grant_of(trace: &AgentTrace, out: &mut Vec<u8>) {
    use std::io::Write as _;
    let _ = write!(out, "a:{}@{:?}:{:?}[", trace.agent_id, trace.version, trace.outcome);
    for tool in &trace.tools {
        let _ = write!(out, "t:{}@{:?}:{:?};", tool.tool_id, tool.version, tool.outcome);
    }
    for collaborator in &trace.collaborators {
        grant_of(collaborator, out);
    }
    out.push(b']');
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
