//! Where the resolver finds definitions: anything already fetched (the service's batch
//! reads, a [`crate::resolve::Snapshot`]).

use std::collections::HashMap;

use crate::model::{AgentDefinition, ToolDefinition};

/// Live definitions by id. Absent means "no live definition" (or not fetched).
pub trait Definitions {
    /// The agent `id`.
    fn agent(&self, id: &str) -> Option<&AgentDefinition>;
    /// The tool `id`.
    fn tool(&self, id: &str) -> Option<&ToolDefinition>;
}

/// Definitions in two maps: what a fetcher fills in.
#[derive(Debug, Clone, Default)]
pub struct DefinitionMap {
    /// Agents by id.
    pub agents: HashMap<String, AgentDefinition>,
    /// Tools by id.
    pub tools: HashMap<String, ToolDefinition>,
}

impl DefinitionMap {
    /// Adds (or replaces) an agent.
    pub fn insert_agent(&mut self, agent: AgentDefinition) {
        self.agents.insert(agent.agent_id.clone(), agent);
    }

    /// Adds (or replaces) a tool.
    pub fn insert_tool(&mut self, tool: ToolDefinition) {
        self.tools.insert(tool.tool_id.clone(), tool);
    }
}

impl Definitions for DefinitionMap {
    fn agent(&self, id: &str) -> Option<&AgentDefinition> {
        self.agents.get(id)
    }

    fn tool(&self, id: &str) -> Option<&ToolDefinition> {
        self.tools.get(id)
    }
}

/// Tool ids to fetch for `agent`: `toolIds` plus `toolOverrides` targets.
pub fn tools_to_fetch(agent: &AgentDefinition) -> Vec<String> {
    agent.references()
}

/// Collaborator agent ids of `agent`, in definition order.
pub fn collaborators_to_fetch(agent: &AgentDefinition) -> impl Iterator<Item = &str> {
    agent.collaborators.iter().flatten().map(|c| c.agent_id.as_str())
}
