//! The in-process authorizer of returned calls: one tool's compiled rules, decided by
//! `registry_policy::decide` as `POST /tools/{id}/authorize` decides them, for runtimes
//! that keep the tool definitions they resolved. With an agent, the call is first
//! checked against what resolving that agent grants (SPEC section 21) over the
//! definitions the runtime holds: the agent and this tool, and any others it adds
//! ([`RuleSetAuthorizer::with_definitions`]).

use std::sync::Arc;

use bedrock_action_group::return_control::{
    self, Authorization, Authorizer, ControlCall, Operation,
};
use registry_access::{PreparedContext, RequestContext, ToolCall};
use registry_core::resolve::{BoundedCache, CompileError, DefinitionMap};
use registry_core::{AgentDefinition, ToolDefinition};
use registry_policy::{
    Budget, CallDecision, CallRequest, Counting, DecideError, Known, Loaded, Reason, counts_calls,
    decide, grant_of,
};
use registry_store::Store;

use serde::Deserialize;
use serde_json::Value;

/// Authorizes in process on a tool's compiled rules (an [`Authorizer`] for
/// `bedrock_action_group::return_control::authorize`).
///
/// It counts calls only when given a store ([`RuleSetAuthorizer::counting_in`]):
/// without one it cannot count, and a call that needs counting (the agent of
/// [`RuleSetAuthorizer::for_agent`] has limits, the tool a rate limit, or a call rule
/// reads `session`) is refused at stage `limit` with `BUDGETS_UNAVAILABLE`, never
/// decided as if nothing counted. Session limits count only in a session
/// ([`RuleSetAuthorizer::in_session`]), as on `authorize`.
pub struct RuleSetAuthorizer {
    loaded: Loaded,
    agent: Option<AgentDefinition>,
    /// What the agent's grant is resolved over: the agent, this tool and any added.
    definitions: DefinitionMap,
    compiled: BoundedCache,
    counters: Option<Arc<dyn Store>>,
    known: Known,
    session: Option<String>,
}

impl std::fmt::Debug for RuleSetAuthorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuleSetAuthorizer")
            .field("tool", &self.loaded.tool().tool_id)
            .field("counts", &self.counters.is_some())
            .finish_non_exhaustive()
    }
}

/// Why a call could not be decided (the runtime does not run it).
#[derive(Debug, thiserror::Error)]
pub enum AuthorizeError {
    /// The request context is not one.
    #[error("the request context is not valid: {0}")]
    Context(String),
    /// The call's arguments do not match the tool's schema (the text the model reads).
    #[error("{0}")]
    Arguments(String),
    /// The session's counts could not be read or written, or cannot be kept.
    #[error(transparent)]
    Counters(#[from] DecideError),
}

impl RuleSetAuthorizer {
    /// Compiles `tool`'s rules; a authorizer that counts nothing.
    pub fn new(tool: ToolDefinition) -> Result<Self, CompileError> {
        let mut definitions = DefinitionMap::default();
        definitions.insert_tool(tool.clone());
        let loaded = Loaded::compile(tool, 0)?;
        Ok(Self {
            loaded,
            agent: None,
            definitions,
            compiled: BoundedCache::new(16),
            counters: None,
            known: Known::default(),
            session: None,
        })
    }

    /// This authorizer deciding the calls of `agent` (`request.agentId`; its `limits`;
    /// what resolving it grants).
    #[must_use]
    pub fn for_agent(mut self, agent: AgentDefinition) -> Self {
        self.definitions.insert_agent(agent.clone());
        self.agent = Some(agent);
        self
    }

    /// This authorizer resolving the agent's grant over `definitions` too (the
    /// collaborators and the releases the runtime resolved with); this tool and the
    /// agent of [`RuleSetAuthorizer::for_agent`] stay as given.
    #[must_use]
    pub fn with_definitions(mut self, definitions: DefinitionMap) -> Self {
        let (tool, agent) = (self.loaded.tool().clone(), self.agent.clone());
        self.definitions = definitions;
        self.definitions.insert_tool(tool);
        if let Some(agent) = agent {
            self.definitions.insert_agent(agent);
        }
        self
    }

    /// This authorizer counting calls in `counters` (the registry's store).
    #[must_use]
    pub fn counting_in(mut self, counters: Arc<dyn Store>) -> Self {
        self.counters = Some(counters);
        self
    }

    /// This authorizer's calls belonging to the Bedrock session `session_id` (with an
    /// agent: its session limits count).
    #[must_use]
    pub fn in_session(mut self, session_id: impl Into<String>) -> Self {
        self.session = Some(session_id.into());
        self
    }

    /// Decides `call` for the request context `context` with `registry_policy::decide`.
    pub async fn decide_call(
        &self,
        context: &Value,
        call: &ControlCall,
    ) -> Result<CallDecision, AuthorizeError> {
        let context = RequestContext::deserialize(context)
            .map_err(|e| AuthorizeError::Context(e.to_string()))?;
        let mut prepared = PreparedContext::new(&context).map_err(|e| {
            AuthorizeError::Context(format!("over the limits ({} problems)", e.len()))
        })?;
        let agent = self.agent.as_ref();
        if let Some(agent) = agent {
            prepared.set_agent_id(Some(&agent.agent_id));
        }
        let arguments = crate::arguments::arguments(&self.loaded, call.name(), &call.parameters)
            .map_err(|e| AuthorizeError::Arguments(e.reprompt_text()))?;
        let http_method = match &call.operation {
            Operation::Api { http_method, .. } => Some(http_method.as_str()),
            Operation::Function(_) => None,
        };
        let call = ToolCall { function: call.name(), http_method, arguments: arguments.as_map() };
        let (tool, rules) = (self.loaded.tool(), self.loaded.rules());
        let session = match (agent, &self.session) {
            (Some(agent), Some(id)) => Some(registry_store::session_key(&agent.agent_id, id)),
            _ => None,
        };
        let counting = match (&self.counters, counts_calls(tool, rules, agent)) {
            (_, false) => Counting::Uncounted,
            (Some(counters), true) => Counting::In(Budget {
                counters: counters.as_ref(),
                known: &self.known,
                session: session.as_deref().map(|key| (key, agent)),
            }),
            (None, true) => Counting::Refused {
                reason: Reason::BudgetsUnavailable,
                message: "this authorizer keeps no session counts".into(),
            },
        };
        let grant = agent.map(|agent| {
            let defs = Some(&self.definitions);
            grant_of(defs, &self.compiled, &agent.agent_id, &prepared, &tool.tool_id)
        });
        let now_ms = chrono::Utc::now().timestamp_millis();
        let grant = grant.as_ref();
        let request = CallRequest {
            tool,
            rules,
            context: &mut prepared,
            call,
            grant,
            explain: false,
            now_ms,
        };
        Ok(decide(request, counting).await?)
    }
}

impl Authorizer for RuleSetAuthorizer {
    async fn authorize(
        &self,
        _tool_id: &str,
        context: &Value,
        call: &ControlCall,
    ) -> Result<Authorization, return_control::AuthorizeError> {
        use return_control::AuthorizeError as NotDecided;
        let decided = self.decide_call(context, call).await.map_err(NotDecided::undecided)?;
        if matches!(decided.reason, Reason::BudgetsUnavailable | Reason::InvalidSession) {
            // not decided: the runtime answers FAILURE
            return Err(NotDecided::undecided(decided.message.unwrap_or_default()));
        }
        Ok(Authorization {
            allowed: decided.is_allowed(),
            reason: decided.why(self.loaded.tool()),
            rule_id: decided.rule_id,
        })
    }
}
