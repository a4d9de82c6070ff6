//! What the service needs to know about a kind of definition: agents and tools alike.

use registry_core::{
    AgentDefinition, Definition, Kind, LifecycleStatus, ServerFields, ToolDefinition, Violation,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A kind of definition the registry stores (implemented by [`AgentDefinition`] and
/// [`ToolDefinition`]).
pub trait Resource:
    Clone + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static
{
    /// Which kind this is.
    const KIND: Kind;
    /// JSON name of the id field: `agentId` or `toolId`.
    const ID_FIELD: &'static str;

    /// The id.
    fn id(&self) -> &str;
    /// Sets the id.
    fn set_id(&mut self, id: String);
    /// Server-managed fields.
    fn server(&self) -> &ServerFields;
    /// Server-managed fields, mutable.
    fn server_mut(&mut self) -> &mut ServerFields;
    /// Lifecycle status (`active` when absent).
    fn status(&self) -> LifecycleStatus;
    /// Runs the domain validation.
    fn validate(&self) -> Result<(), Vec<Violation>>;
    /// A copy safe to hand out: write-only secrets removed.
    fn redacted(&self) -> Self;
    /// Takes the write-only secrets of `stored` that this input omits where that is
    /// safe, and names every required secret that is still missing.
    fn inherit_secrets(&mut self, stored: Option<&Self>) -> Vec<Violation>;
    /// Wraps into a [`Definition`].
    fn into_definition(self) -> Definition;
    /// Unwraps from a [`Definition`] of the right kind.
    fn from_definition(definition: Definition) -> Option<Self>;

    /// Current version, 0 when not stored.
    fn version(&self) -> u64 {
        self.server().version.unwrap_or(0)
    }

    /// The stored form of an id as a client wrote it (tools: `weather@1` is
    /// `weather@1.0.0`); every operation taking an id reads and writes this form.
    fn canonical_id(id: &str) -> String {
        id.to_owned()
    }
}

impl Resource for AgentDefinition {
    const KIND: Kind = Kind::Agent;
    const ID_FIELD: &'static str = "agentId";

    fn id(&self) -> &str {
        &self.agent_id
    }
    fn set_id(&mut self, id: String) {
        self.agent_id = id;
    }
    fn server(&self) -> &ServerFields {
        &self.server
    }
    fn server_mut(&mut self) -> &mut ServerFields {
        &mut self.server
    }
    fn status(&self) -> LifecycleStatus {
        self.lifecycle.as_ref().map(|l| l.status).unwrap_or_default()
    }
    fn validate(&self) -> Result<(), Vec<Violation>> {
        registry_core::validate::agent(self)
    }
    fn redacted(&self) -> Self {
        self.clone()
    }
    fn inherit_secrets(&mut self, _stored: Option<&Self>) -> Vec<Violation> {
        Vec::new()
    }
    fn into_definition(self) -> Definition {
        Definition::Agent(self)
    }
    fn from_definition(definition: Definition) -> Option<Self> {
        match definition {
            Definition::Agent(a) => Some(a),
            Definition::Tool(_) => None,
        }
    }
}

impl Resource for ToolDefinition {
    const KIND: Kind = Kind::Tool;
    const ID_FIELD: &'static str = "toolId";

    fn canonical_id(id: &str) -> String {
        registry_core::Release::parse(id).map_or_else(|| id.to_owned(), |r| r.canonical_id())
    }

    fn id(&self) -> &str {
        &self.tool_id
    }
    fn set_id(&mut self, id: String) {
        self.tool_id = id;
    }
    fn server(&self) -> &ServerFields {
        &self.server
    }
    fn server_mut(&mut self) -> &mut ServerFields {
        &mut self.server
    }
    fn status(&self) -> LifecycleStatus {
        self.lifecycle.as_ref().map(|l| l.status).unwrap_or_default()
    }
    fn validate(&self) -> Result<(), Vec<Violation>> {
        registry_core::validate::tool(self)
    }
    fn redacted(&self) -> Self {
        ToolDefinition::redacted(self)
    }
    fn inherit_secrets(&mut self, stored: Option<&Self>) -> Vec<Violation> {
        self.inherit_secret(stored).into_iter().collect()
    }
    fn into_definition(self) -> Definition {
        Definition::Tool(self)
    }
    fn from_definition(definition: Definition) -> Option<Self> {
        match definition {
            Definition::Tool(t) => Some(t),
            Definition::Agent(_) => None,
        }
    }
}
