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
    /// Every live release of the tool `name` (ids `<name>@<version>`), in any order:
    /// what a range in `toolIds` chooses from.
    fn releases(&self, name: &str) -> Vec<&ToolDefinition>;
}

/// Whether `id` is a release of the tool `name`.
pub(crate) fn is_release_of(id: &str, name: &str) -> bool {
    id.strip_prefix(name).is_some_and(|rest| rest.starts_with('@'))
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

    fn releases(&self, name: &str) -> Vec<&ToolDefinition> {
        self.tools.values().filter(|t| is_release_of(&t.tool_id, name)).collect()
    }
}

/// Tool ids to fetch for `agent`: the exact ids among `toolIds` and `toolOverrides`
/// targets (ranges are fetched by name: [`tool_names_to_fetch`]).
pub fn tools_to_fetch(agent: &AgentDefinition) -> Vec<String> {
    agent.references()
}

/// Tool names whose releases `agent`'s ranges choose from.
pub fn tool_names_to_fetch(agent: &AgentDefinition) -> Vec<String> {
    agent.range_names()
}

/// Collaborator agent ids of `agent`, in definition order.
pub fn collaborators_to_fetch(agent: &AgentDefinition) -> impl Iterator<Item = &str> {
    agent.collaborators.iter().flatten().map(|c| c.agent_id.as_str())
}
