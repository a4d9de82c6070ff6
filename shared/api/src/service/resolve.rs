//! Resolution over the store: the agent (one read), its tools (one batch read), then
//! collaborators level by level (one batch for the agents of a level, one for their
//! tools), then the pure resolver of `registry_core::resolve` with the registry's
//! compiled-rule cache.

use std::collections::HashSet;

use registry_core::resolve::{
    DefinitionMap, MAX_COLLABORATOR_DEPTH, Resolution, ResolveError, collaborators_to_fetch,
    tool_names_to_fetch, tools_to_fetch,
};
use registry_core::{AgentDefinition, Definition, Kind, RequestContext, Violation};

use crate::service::{Registry, ServiceError, references};

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

impl Registry {
    /// Resolves the live agent `agent_id` for the caller described by `ctx`
    /// (SPEC section 7).
    pub async fn resolve(
        &self,
        agent_id: &str,
        ctx: &RequestContext,
    ) -> Result<Resolution, ResolveFailure> {
        let defs = self.fetch_for_resolution(agent_id).await?;
        registry_core::resolve::resolve(&defs, self.rules.as_ref(), agent_id, ctx)
            .map_err(ResolveFailure::from)
    }

    /// Everything resolving `agent_id` may need: the agent, its tools (override
    /// targets included) and its collaborators down to the depth limit, with theirs.
    pub async fn fetch_for_resolution(
        &self,
        agent_id: &str,
    ) -> Result<DefinitionMap, ServiceError> {
        let root = self
            .store()
            .get(Kind::Agent, agent_id)
            .await
            .map_err(|e| ServiceError::from_store(Kind::Agent, agent_id, e))?;
        let Some(Definition::Agent(root)) = root else {
            return Err(ServiceError::NotFound { kind: Kind::Agent, id: agent_id.to_owned() });
        };
        let mut defs = DefinitionMap::default();
        let mut asked_tools: HashSet<String> = HashSet::new();
        let mut asked_names: HashSet<String> = HashSet::new();
        let mut asked_agents: HashSet<String> = HashSet::from([root.agent_id.clone()]);
        let mut level = vec![root];
        for depth in 0..=MAX_COLLABORATOR_DEPTH {
            let tool_ids: Vec<String> = level
                .iter()
                .flat_map(tools_to_fetch)
                .filter(|id| asked_tools.insert(id.clone()))
                .collect();
            for found in self.get_many(Kind::Tool, &tool_ids).await? {
                if let Definition::Tool(tool) = found {
                    defs.insert_tool(tool);
                }
            }
            let names: Vec<String> = level
                .iter()
                .flat_map(tool_names_to_fetch)
                .filter(|name| asked_names.insert(name.clone()))
                .collect();
            for name in names {
                for tool in references::live_releases(self.store().as_ref(), &name).await? {
                    defs.insert_tool(tool);
                }
            }
            let next: Vec<String> = if depth < MAX_COLLABORATOR_DEPTH {
                level
                    .iter()
                    .flat_map(collaborators_to_fetch)
                    .filter(|id| asked_agents.insert((*id).to_owned()))
                    .map(str::to_owned)
                    .collect()
            } else {
                Vec::new()
            };
            for agent in level.drain(..) {
                defs.insert_agent(agent);
            }
            level = self
                .get_many(Kind::Agent, &next)
                .await?
                .into_iter()
                .filter_map(|d| match d {
                    Definition::Agent(a) => Some(a),
                    Definition::Tool(_) => None,
                })
                .collect::<Vec<AgentDefinition>>();
            if level.is_empty() {
                break;
            }
        }
        Ok(defs)
    }

    /// The live definitions among `ids` (one batch read; none for an empty list).
    async fn get_many(&self, kind: Kind, ids: &[String]) -> Result<Vec<Definition>, ServiceError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let found = self
            .store()
            .get_many(kind, ids)
            .await
            .map_err(|e| ServiceError::from_store(kind, "", e))?;
        Ok(found.into_iter().flatten().collect())
    }
}
