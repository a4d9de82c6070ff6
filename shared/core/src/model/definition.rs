//! Either kind of definition, for code that treats agents and tools alike (storage).

use serde::{Deserialize, Serialize};

use super::{AgentDefinition, ExecutionType, LifecycleStatus, ServerFields, Tags, ToolDefinition};

/// The two kinds of definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// An agent definition.
    Agent,
    /// A tool definition.
    Tool,
}

impl Kind {
    /// Lower-case name: `agent` or `tool`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Tool => "tool",
        }
    }
}

/// An agent or a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "definition", rename_all = "lowercase")]
pub enum Definition {
    /// An agent.
    Agent(AgentDefinition),
    /// A tool.
    Tool(ToolDefinition),
}

impl Definition {
    /// Which kind this is.
    pub fn kind(&self) -> Kind {
        match self {
            Self::Agent(_) => Kind::Agent,
            Self::Tool(_) => Kind::Tool,
        }
    }

    /// The agent or tool id.
    pub fn id(&self) -> &str {
        match self {
            Self::Agent(a) => &a.agent_id,
            Self::Tool(t) => &t.tool_id,
        }
    }

    /// Server-managed fields.
    pub fn server(&self) -> &ServerFields {
        match self {
            Self::Agent(a) => &a.server,
            Self::Tool(t) => &t.server,
        }
    }

    /// Server-managed fields, mutable (for the store to stamp `version`).
    pub fn server_mut(&mut self) -> &mut ServerFields {
        match self {
            Self::Agent(a) => &mut a.server,
            Self::Tool(t) => &mut t.server,
        }
    }

    /// Current version, 0 when not yet stored.
    pub fn version(&self) -> u64 {
        self.server().version.unwrap_or(0)
    }

    /// Lifecycle status (`active` when absent).
    pub fn status(&self) -> LifecycleStatus {
        let lifecycle = match self {
            Self::Agent(a) => a.lifecycle.as_ref(),
            Self::Tool(t) => t.lifecycle.as_ref(),
        };
        lifecycle.map(|l| l.status).unwrap_or_default()
    }

    /// Tags, if any.
    pub fn tags(&self) -> Option<&Tags> {
        match self {
            Self::Agent(a) => a.tags.as_ref(),
            Self::Tool(t) => t.tags.as_ref(),
        }
    }

    /// Execution type, for tools.
    pub fn execution_type(&self) -> Option<ExecutionType> {
        match self {
            Self::Agent(_) => None,
            Self::Tool(t) => Some(t.execution_type),
        }
    }

    /// The JSON a store keeps for this definition: the agent or tool wire form plus its
    /// write-only secrets, which no other serialization carries.
    pub fn storage_json(&self) -> serde_json::Result<serde_json::Value> {
        let mut value = match self {
            Self::Agent(a) => serde_json::to_value(a)?,
            Self::Tool(t) => serde_json::to_value(t)?,
        };
        if let Self::Tool(tool) = self
            && let Some(secret) = tool.auth.as_ref().and_then(|a| a.client_secret.as_ref())
            && let Some(auth) = value.get_mut("auth").and_then(serde_json::Value::as_object_mut)
        {
            auth.insert("clientSecret".into(), secret.expose().into());
        }
        Ok(value)
    }

    /// Tool ids this definition depends on: an agent's `toolIds` and override targets,
    /// sorted and without duplicates. Tools reference nothing.
    pub fn references(&self) -> Vec<String> {
        match self {
            Self::Agent(agent) => agent.references(),
            Self::Tool(_) => Vec::new(),
        }
    }
}
