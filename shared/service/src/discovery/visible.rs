//! Who is asking, and what they may see: everything for a caller with a role; for a
//! principal, what resolving its agent for its context grants (the agent and the
//! collaborators resolution keeps, with the tools it keeps for each), decided by the
//! `Resolver` itself, never by a second copy of the rules.
//!
//! A principal's grant and the search index over it are kept per agent, context and
//! snapshot (decision 114): the snapshot moves on with every event of the store's log,
//! so a change to the agent, its tools or their rules is seen by the next request; an
//! entry is worked out again at the latest [`GRANT_MAX_AGE`] after it was (rules may
//! read the time). Working one out takes a permit of a budget every principal shares,
//! so principals' searches never hold every worker of the server.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use registry_core::resolve::{AgentOutcome, AgentTrace, ToolOutcome};
use registry_core::{AgentDefinition, RequestContext, ToolDefinition, ToolRef};
use registry_discovery::ToolIndex;

use super::Discovery;
use super::snapshot::{Snapshot, is_usable, newest_usable};
use crate::{ResolveFailure, ServiceError};

/// Who discovers.
#[derive(Debug, Clone, PartialEq)]
pub enum Viewer {
    /// A caller with a role (reader, runtime and above): sees every definition.
    Everyone,
    /// A principal: sees what resolving `agent_id` for `context` grants.
    Principal {
        /// The agent the principal's token was issued for (or the anonymous agent).
        agent_id: String,
        /// The request context of the principal.
        context: Box<RequestContext>,
    },
}

/// What one principal is granted: agents by id, each with the tool ids kept for it.
#[derive(Debug, Default)]
struct Grant {
    agents: BTreeMap<String, BTreeSet<String>>,
}

/// A principal's grant with the index over its tools, as worked out at `at`.
struct Granted {
    grant: Grant,
    index: ToolIndex,
    at: Instant,
}

/// Longest a principal's grant is kept before it is worked out again, though no event
/// came: access rules may read `request.time`, which moves on by itself.
pub(crate) const GRANT_MAX_AGE: Duration = Duration::from_secs(10);

/// Most weight of the grants kept: an entry weighs one per tool indexed, one per
/// [`CONTEXT_BYTES_PER_UNIT`] bytes of its context's text, plus one.
const MAX_GRANTED_WEIGHT: u64 = 50_000;
/// Bytes of a kept grant's context text that weigh as much as one indexed tool.
const CONTEXT_BYTES_PER_UNIT: u64 = 128;

/// Principals' grants worked out at once, at most: the rest wait, so a burst of
/// principal searches keeps workers free for every other request.
fn grant_budget() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}

#[derive(Clone)]
struct ByWeight;

impl quick_cache::Weighter<(String, String, u64), Arc<Granted>> for ByWeight {
    fn weight(&self, key: &(String, String, u64), granted: &Arc<Granted>) -> u64 {
        let text = (key.0.len() + key.1.len()) as u64;
        granted.index.tools().len() as u64 + text / CONTEXT_BYTES_PER_UNIT + 1
    }
}

/// The principals' grants kept, by agent, context (its JSON text) and snapshot; and the
/// budget of grants worked out at once.
pub(crate) struct Grants {
    kept: quick_cache::sync::Cache<(String, String, u64), Arc<Granted>, ByWeight>,
    budget: tokio::sync::Semaphore,
}

impl Default for Grants {
    fn default() -> Self {
        Self {
            kept: quick_cache::sync::Cache::with_weighter(4_096, MAX_GRANTED_WEIGHT, ByWeight),
            budget: tokio::sync::Semaphore::new(grant_budget()),
        }
    }
}

impl Grants {
    fn fresh(&self, key: &(String, String, u64)) -> Option<Arc<Granted>> {
        self.kept.get(key).filter(|g| g.at.elapsed() < GRANT_MAX_AGE)
    }
}

/// The definitions one viewer may see, over one snapshot.
pub(crate) struct View {
    snapshot: Arc<Snapshot>,
    /// `None`: everything.
    grant: Option<Arc<Granted>>,
}

impl Discovery {
    /// What `viewer` may see now.
    pub(crate) async fn view(&self, viewer: &Viewer) -> Result<View, ServiceError> {
        let snapshot = self.snapshots.current(self.resolver.store().as_ref()).await?;
        let grant = match viewer {
            Viewer::Everyone => None,
            Viewer::Principal { agent_id, context } => {
                Some(self.granted(&snapshot, agent_id, context).await?)
            }
        };
        Ok(View { snapshot, grant })
    }

    /// What `agent_id` for `context` is granted over `snapshot`, kept or worked out
    /// (within the budget, and looked up again once a permit is held: of a burst of
    /// requests for one principal, one works it out).
    async fn granted(
        &self,
        snapshot: &Snapshot,
        agent_id: &str,
        context: &RequestContext,
    ) -> Result<Arc<Granted>, ServiceError> {
        // The key must tell contexts apart: a context that cannot be written as text is
        // an error, never a shared empty key.
        let text = serde_json::to_string(context).map_err(|e| {
            ServiceError::Internal(format!("a principal's context could not be written: {e}"))
        })?;
        let key = (agent_id.to_owned(), text, snapshot.seq);
        let grants = &self.snapshots.grants;
        if let Some(kept) = grants.fresh(&key) {
            return Ok(kept);
        }
        let _permit = grants
            .budget
            .acquire()
            .await
            .map_err(|_| ServiceError::Unavailable("discovery is shutting down".into()))?;
        if let Some(kept) = grants.fresh(&key) {
            return Ok(kept);
        }
        let grant = self.grant(agent_id, context).await?;
        let tools: Vec<Arc<ToolDefinition>> = grant
            .agents
            .values()
            .flatten()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter_map(|id| snapshot.tools.get(id).cloned())
            .collect();
        let granted =
            Arc::new(Granted { grant, index: ToolIndex::build(tools), at: Instant::now() });
        grants.kept.insert(key, Arc::clone(&granted));
        Ok(granted)
    }

    /// What resolving `agent_id` for `context` grants: nothing when resolution refuses
    /// the agent or finds none.
    async fn grant(&self, agent_id: &str, context: &RequestContext) -> Result<Grant, ServiceError> {
        let mut grant = Grant::default();
        match self.resolver.resolve(agent_id, context, None).await {
            Ok(resolution) => granted(&resolution.trace, &mut grant),
            Err(ResolveFailure::Refused(_)) => {}
            Err(ResolveFailure::Service(
                ServiceError::NotFound { .. } | ServiceError::Invalid(_),
            )) => {}
            Err(ResolveFailure::Service(other)) => return Err(other),
        }
        Ok(grant)
    }
}

/// The agents of `trace` resolution kept, each with the tools it kept.
fn granted(trace: &AgentTrace, grant: &mut Grant) {
    if trace.outcome != AgentOutcome::Resolved {
        return;
    }
    let tools = trace
        .tools
        .iter()
        .filter(|t| t.outcome == ToolOutcome::Included)
        .map(|t| t.tool_id.clone())
        .collect();
    grant.agents.insert(trace.agent_id.clone(), tools);
    for collaborator in &trace.collaborators {
        granted(collaborator, grant);
    }
}

impl View {
    /// The search index over what the viewer may see (for a principal, over exactly the
    /// tools granted, so scores depend on nothing hidden).
    pub(crate) fn index(&self) -> &ToolIndex {
        match &self.grant {
            Some(granted) => &granted.index,
            None => &self.snapshot.index,
        }
    }

    /// Every tool release the viewer may see, by id.
    pub(crate) fn tools(&self) -> Box<dyn Iterator<Item = &Arc<ToolDefinition>> + '_> {
        match &self.grant {
            None => Box::new(self.snapshot.tools.values()),
            Some(granted) => Box::new(granted.index.tools().iter()),
        }
    }

    /// Every agent the viewer may see, by id, with the tools its skills come from.
    pub(crate) fn agents(&self) -> Vec<(&AgentDefinition, Vec<&ToolDefinition>)> {
        match &self.grant {
            None => self.snapshot.agents.values().map(|a| (a.as_ref(), self.tools_of(a))).collect(),
            Some(granted) => granted
                .grant
                .agents
                .iter()
                .filter_map(|(id, tools)| {
                    let agent = self.snapshot.agents.get(id)?;
                    let tools = tools
                        .iter()
                        .filter_map(|t| self.snapshot.tools.get(t).map(AsRef::as_ref))
                        .collect();
                    Some((agent.as_ref(), tools))
                })
                .collect(),
        }
    }

    /// The tools an agent names, for a viewer who sees everything: each reference's
    /// exact release, or the newest usable release in its range.
    fn tools_of(&self, agent: &AgentDefinition) -> Vec<&ToolDefinition> {
        agent
            .tool_ids
            .iter()
            .filter_map(|reference| match ToolRef::parse(reference).ok()? {
                ToolRef::Exact(id) => self.snapshot.tools.get(&id).map(AsRef::as_ref),
                range @ ToolRef::Range { .. } => {
                    let candidates =
                        self.snapshot.tools.values().filter(|t| range.admits(&t.tool_id));
                    newest_usable(candidates)
                        .first()
                        .and_then(|t| self.snapshot.tools.get(&t.tool_id).map(AsRef::as_ref))
                }
            })
            .filter(|t| is_usable(t))
            .collect()
    }
}
