//! Resolution as a library: an immutable snapshot of definitions with everything
//! compiled up front, and [`LiveSnapshot`] to swap in a refreshed one.
//!
//! Refresh pattern: a background task lists the registry (or reads an export) every N
//! seconds, builds `previous.refresh(agents, tools)` (which reuses compiled entries whose
//! (id, version) did not change), and calls [`LiveSnapshot::replace`]. Request handlers
//! call [`LiveSnapshot::current`] once and resolve against that `Arc<Snapshot>`: a
//! resolution never sees a mix of two snapshots, and readers never wait for a rebuild.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use registry_access::{RequestContext, RuleSet};

use crate::model::{AgentDefinition, ToolDefinition};
use crate::resolve::compiled::{
    CompileError, CompiledTool, RuleCache, compile_agent, compile_tool,
};
use crate::resolve::definitions::Definitions;
use crate::resolve::error::ResolveError;
use crate::resolve::resolution::Resolution;
use crate::resolve::resolver;

type Compiled<T> = Result<Arc<T>, CompileError>;

/// Live definitions with their compiled rules and action groups. `Send + Sync`.
#[derive(Debug, Default)]
pub struct Snapshot {
    agents: HashMap<String, (AgentDefinition, Compiled<RuleSet>)>,
    tools: HashMap<String, (ToolDefinition, Compiled<CompiledTool>)>,
    /// Release ids by tool name (the part before `@`).
    releases: HashMap<String, Vec<String>>,
}

fn version_of(server: &crate::model::ServerFields) -> u64 {
    server.version.unwrap_or(0)
}

impl Snapshot {
    /// Compiles every definition. Definitions whose rules do not compile are kept and
    /// fail closed at resolution (an agent: an error; a tool: left out).
    pub fn new(
        agents: impl IntoIterator<Item = AgentDefinition>,
        tools: impl IntoIterator<Item = ToolDefinition>,
    ) -> Self {
        Self::default().refresh(agents, tools)
    }

    /// A new snapshot of `agents` and `tools`, reusing this one's compiled entries for
    /// definitions whose (id, version) is unchanged (unversioned ones are recompiled).
    pub fn refresh(
        &self,
        agents: impl IntoIterator<Item = AgentDefinition>,
        tools: impl IntoIterator<Item = ToolDefinition>,
    ) -> Self {
        let agents = agents
            .into_iter()
            .map(|a| {
                let v = version_of(&a.server);
                let compiled = match self.agents.get(&a.agent_id) {
                    Some((old, c)) if v != 0 && version_of(&old.server) == v => c.clone(),
                    _ => compile_agent(&a).map(Arc::new),
                };
                (a.agent_id.clone(), (a, compiled))
            })
            .collect();
        let tools = tools
            .into_iter()
            .map(|t| {
                let v = version_of(&t.server);
                let compiled = match self.tools.get(&t.tool_id) {
                    Some((old, c)) if v != 0 && version_of(&old.server) == v => c.clone(),
                    _ => compile_tool(&t).map(Arc::new),
                };
                (t.tool_id.clone(), (t, compiled))
            })
            .collect::<HashMap<_, _>>();
        let mut releases: HashMap<String, Vec<String>> = HashMap::new();
        for id in tools.keys() {
            if let Some((name, _)) = id.split_once('@') {
                releases.entry(name.to_owned()).or_default().push(id.clone());
            }
        }
        Self { agents, tools, releases }
    }

    /// Resolves `agent_id` for the caller in `ctx` (same semantics as the HTTP API).
    pub fn resolve(
        &self,
        agent_id: &str,
        ctx: &RequestContext,
    ) -> Result<Resolution, ResolveError> {
        resolver::resolve(self, self, agent_id, ctx)
    }

    /// Number of (agents, tools).
    pub fn len(&self) -> (usize, usize) {
        (self.agents.len(), self.tools.len())
    }

    /// Whether the snapshot holds no definitions.
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty() && self.tools.is_empty()
    }
}

impl Definitions for Snapshot {
    fn agent(&self, id: &str) -> Option<&AgentDefinition> {
        self.agents.get(id).map(|(a, _)| a)
    }

    fn tool(&self, id: &str) -> Option<&ToolDefinition> {
        self.tools.get(id).map(|(t, _)| t)
    }

    fn releases(&self, name: &str) -> Vec<&ToolDefinition> {
        self.releases
            .get(name)
            .into_iter()
            .flatten()
            .filter_map(|id| self.tools.get(id).map(|(t, _)| t))
            .collect()
    }
}

impl RuleCache for Snapshot {
    fn agent(&self, agent: &AgentDefinition) -> Result<Arc<RuleSet>, CompileError> {
        match self.agents.get(&agent.agent_id) {
            Some((stored, compiled)) if stored.server.version == agent.server.version => {
                compiled.clone()
            }
            _ => compile_agent(agent).map(Arc::new),
        }
    }

    fn tool(&self, tool: &ToolDefinition) -> Result<Arc<CompiledTool>, CompileError> {
        match self.tools.get(&tool.tool_id) {
            Some((stored, compiled)) if stored.server.version == tool.server.version => {
                compiled.clone()
            }
            _ => compile_tool(tool).map(Arc::new),
        }
    }
}

/// The current snapshot, replaceable while requests resolve against the previous one.
#[derive(Debug, Default)]
pub struct LiveSnapshot {
    current: RwLock<Arc<Snapshot>>,
}

impl LiveSnapshot {
    /// Starts with `snapshot`.
    pub fn new(snapshot: Snapshot) -> Self {
        Self { current: RwLock::new(Arc::new(snapshot)) }
    }

    /// The current snapshot (a cheap `Arc` clone; hold it for one resolution).
    pub fn current(&self) -> Arc<Snapshot> {
        match self.current.read() {
            Ok(guard) => Arc::clone(&guard),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Makes `snapshot` current; resolutions already running finish on the old one.
    pub fn replace(&self, snapshot: Snapshot) {
        let next = Arc::new(snapshot);
        match self.current.write() {
            Ok(mut guard) => *guard = next,
            Err(poisoned) => *poisoned.into_inner() = next,
        }
    }
}
