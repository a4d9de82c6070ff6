//! Who is asking, and what they may see: everything for a caller with a role; for a
//! principal, what resolving its agent for its context grants (the agent and the
//! collaborators resolution keeps, with the tools it keeps for each), decided by the
//! `Resolver` itself, never by a second copy of the rules.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

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

/// The definitions one viewer may see, over one snapshot.
pub(crate) struct View {
    snapshot: Arc<Snapshot>,
    /// `None`: everything.
    grant: Option<(Grant, ToolIndex)>,
}

impl Discovery {
    /// What `viewer` may see now.
    pub(crate) async fn view(&self, viewer: &Viewer) -> Result<View, ServiceError> {
        let snapshot = self.snapshots.current(self.resolver.store().as_ref()).await?;
        let grant = match viewer {
            Viewer::Everyone => None,
            Viewer::Principal { agent_id, context } => {
                let grant = self.grant(agent_id, context).await?;
                let tools: Vec<Arc<ToolDefinition>> = grant
                    .agents
                    .values()
                    .flatten()
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .filter_map(|id| snapshot.tools.get(id).cloned())
                    .collect();
                Some((grant, ToolIndex::build(tools)))
            }
        };
        Ok(View { snapshot, grant })
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
            Some((_, index)) => index,
            None => &self.snapshot.index,
        }
    }

    /// Every tool release the viewer may see, by id.
    pub(crate) fn tools(&self) -> Box<dyn Iterator<Item = &Arc<ToolDefinition>> + '_> {
        match &self.grant {
            None => Box::new(self.snapshot.tools.values()),
            Some((_, index)) => Box::new(index.tools().iter()),
        }
    }

    /// Every agent the viewer may see, by id, with the tools its skills come from.
    pub(crate) fn agents(&self) -> Vec<(&AgentDefinition, Vec<&ToolDefinition>)> {
        match &self.grant {
            None => self.snapshot.agents.values().map(|a| (a.as_ref(), self.tools_of(a))).collect(),
            Some((grant, _)) => grant
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
