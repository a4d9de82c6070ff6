//! What the service needs to know about a kind of definition: agents and tools alike.

use registry_core::{
    AgentDefinition, Definition, Kind, LifecycleStatus, ServerFields, ToolDefinition, Violation,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Where a tool's write-only OAuth client secret sits.
const CLIENT_SECRET: &str = "/auth/clientSecret";

/// A borrowed view of a definition of either kind: what the kind-specific write checks
/// read, without converting (and copying) into a [`Definition`].
#[derive(Debug, Clone, Copy)]
pub enum DefinitionRef<'a> {
    /// An agent.
    Agent(&'a AgentDefinition),
    /// A tool.
    Tool(&'a ToolDefinition),
}

/// What taking the stored write-only secrets did to an input.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Secrets {
    /// JSON Pointers of the secrets taken from the stored definition.
    pub inherited: Vec<&'static str>,
    /// Every required secret that is still missing.
    pub missing: Vec<Violation>,
}

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
    /// This definition, safe to hand out: write-only secrets removed.
    fn redact(self) -> Self;
    /// Takes the write-only secrets of `stored` that this input omits where that is
    /// safe: which it took, and every required secret that is still missing.
    fn inherit_secrets(&mut self, stored: Option<&Self>) -> Secrets;
    /// Gives every rule without an id one, keeping the ids of `stored`'s rules (SPEC
    /// section 15).
    fn assign_rule_ids(&mut self, stored: Option<&Self>);
    /// Wraps into a [`Definition`].
    fn into_definition(self) -> Definition;
    /// Unwraps from a [`Definition`] of the right kind.
    fn from_definition(definition: Definition) -> Option<Self>;
    /// Borrows from a [`Definition`] of the right kind.
    fn from_ref(definition: &Definition) -> Option<&Self>;
    /// A borrowed view of this definition.
    fn view(&self) -> DefinitionRef<'_>;

    /// A tool's MCP `auth` block, mutable; agents have none.
    fn auth_mut(&mut self) -> Option<&mut registry_core::McpAuth> {
        None
    }

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

/// The methods agents and tools implement alike: `$id` is the id field, `$variant`
/// the [`Definition`] (and [`DefinitionRef`]) variant, `$other` the other one.
macro_rules! shared_methods {
    ($id:ident, $variant:ident, $other:ident) => {
        fn id(&self) -> &str {
            &self.$id
        }
        fn set_id(&mut self, id: String) {
            self.$id = id;
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
        fn into_definition(self) -> Definition {
            Definition::$variant(self)
        }
        fn from_definition(definition: Definition) -> Option<Self> {
            match definition {
                Definition::$variant(d) => Some(d),
                Definition::$other(_) => None,
            }
        }
        fn from_ref(definition: &Definition) -> Option<&Self> {
            match definition {
                Definition::$variant(d) => Some(d),
                Definition::$other(_) => None,
            }
        }
        fn view(&self) -> DefinitionRef<'_> {
            DefinitionRef::$variant(self)
        }
    };
}

impl Resource for AgentDefinition {
    const KIND: Kind = Kind::Agent;
    const ID_FIELD: &'static str = "agentId";

    shared_methods!(agent_id, Agent, Tool);

    fn validate(&self) -> Result<(), Vec<Violation>> {
        registry_core::validate::agent(self)
    }
    fn redact(self) -> Self {
        self
    }
    fn inherit_secrets(&mut self, _stored: Option<&Self>) -> Secrets {
        Secrets::default()
    }
    fn assign_rule_ids(&mut self, stored: Option<&Self>) {
        let old = stored.and_then(|s| s.access_rules.as_deref()).unwrap_or_default();
        if let Some(rules) = self.access_rules.as_mut() {
            registry_core::assign_rule_ids(rules, old);
        }
    }
}

impl Resource for ToolDefinition {
    const KIND: Kind = Kind::Tool;
    const ID_FIELD: &'static str = "toolId";

    shared_methods!(tool_id, Tool, Agent);

    fn canonical_id(id: &str) -> String {
        registry_core::Release::parse(id).map_or_else(|| id.to_owned(), |r| r.canonical_id())
    }
    fn validate(&self) -> Result<(), Vec<Violation>> {
        registry_core::validate::tool(self)
    }
    fn redact(mut self) -> Self {
        if let Some(auth) = self.auth.as_mut() {
            auth.client_secret = None;
        }
        self
    }
    fn auth_mut(&mut self) -> Option<&mut registry_core::McpAuth> {
        self.auth.as_mut()
    }
    fn inherit_secrets(&mut self, stored: Option<&Self>) -> Secrets {
        let omitted = self.auth.as_ref().is_some_and(|a| a.client_secret.is_none());
        let missing: Vec<Violation> = self.inherit_secret(stored).into_iter().collect();
        let inherited = match omitted && missing.is_empty() {
            true => vec![CLIENT_SECRET],
            false => Vec::new(),
        };
        Secrets { inherited, missing }
    }
    fn assign_rule_ids(&mut self, stored: Option<&Self>) {
        let old = stored.and_then(|s| s.access_rules.as_deref()).unwrap_or_default();
        if let Some(rules) = self.access_rules.as_mut() {
            registry_core::assign_rule_ids(rules, old);
        }
        let old = stored.and_then(|s| s.call_rules.as_deref()).unwrap_or_default();
        if let Some(rules) = self.call_rules.as_mut() {
            registry_core::assign_rule_ids(rules, old);
        }
    }
}
