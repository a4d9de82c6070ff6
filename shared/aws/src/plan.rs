//! Publishing an agent to Bedrock Agents, planned: the desired state (a resolution for
//! the publication's audience) against what Bedrock holds gives the calls to make. Pure:
//! reading Bedrock and making the calls is the publisher's job; this decides which.
//!
//! Properties (tested): a plan applied to the state it was made from yields a state for
//! which the next plan makes no mutating call, and a state already matching makes none.

use std::collections::BTreeMap;

use registry_core::resolve::{ActionGroupExecutor, Resolution};
use registry_core::{
    AgentCollaboration, BedrockSettings, OrchestrationSettings, OrchestrationType,
};
use serde::{Serialize, Serializer};
use serde_json::Value;

/// `value` as JSON (`null` when it cannot be, which no registry type does).
pub(crate) fn json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Bedrock's idle session timeout when none is set, in seconds.
pub const DEFAULT_IDLE_TTL: u32 = 600;

/// An agent's own settings as Bedrock's `CreateAgent`/`UpdateAgent` take them, with AWS's
/// member names: the inline agent's, with Bedrock's defaults named (Bedrock reads them
/// back, so naming them keeps a republish a no-op).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSettings {
    /// `instruction`.
    pub instruction: Option<String>,
    /// `foundationModel`.
    pub foundation_model: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `agentCollaboration`.
    pub agent_collaboration: Option<AgentCollaboration>,
    /// Guardrail, session time-out, prompt overrides, encryption key.
    #[serde(flatten)]
    pub bedrock: BedrockSettings,
    /// Orchestration.
    #[serde(flatten)]
    pub orchestration: OrchestrationSettings,
}

impl AgentSettings {
    /// The settings as JSON members by name: what a plan shows and compares.
    pub fn members(&self) -> BTreeMap<String, Value> {
        match json(self) {
            Value::Object(members) => members.into_iter().collect(),
            _ => BTreeMap::new(),
        }
    }

    /// The members of `self` that differ in `other`, with `other`'s values (`null`:
    /// absent from `other`).
    pub fn changes_to(&self, other: &Self) -> BTreeMap<String, Value> {
        let (current, desired) = (self.members(), other.members());
        let mut changes: BTreeMap<String, Value> = desired
            .iter()
            .filter(|(key, value)| current.get(*key) != Some(value))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        for key in current.keys().filter(|k| !desired.contains_key(*k)) {
            changes.insert(key.clone(), Value::Null);
        }
        changes
    }
}

/// Writes `settings` as its members in name order.
fn by_name<S: Serializer>(settings: &AgentSettings, serializer: S) -> Result<S::Ok, S::Error> {
    settings.members().serialize(serializer)
}

/// One action group as `CreateAgentActionGroup` takes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionGroupSpec {
    /// `actionGroupName`.
    pub name: String,
    /// `description`.
    pub description: String,
    /// `actionGroupExecutor`: `{lambda}` or `{customControl}`.
    pub executor: Value,
    /// `functionSchema`.
    pub function_schema: Value,
}

/// One knowledge-base association.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeBaseSpec {
    /// `knowledgeBaseId`.
    pub id: String,
    /// `description`.
    pub description: String,
}

/// One collaborator association: a published agent, by its alias.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CollaboratorSpec {
    /// `collaboratorName`.
    pub name: String,
    /// `agentDescriptor.aliasArn` of the collaborator's own publication.
    pub alias_arn: String,
    /// `collaborationInstruction`.
    pub instruction: String,
    /// `relayConversationHistory`.
    pub relay: String,
}

/// What a publication should leave in Bedrock.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Desired {
    /// `agentName`.
    pub agent_name: String,
    /// The agent's settings.
    pub settings: AgentSettings,
    /// Action groups by name.
    pub action_groups: BTreeMap<String, ActionGroupSpec>,
    /// Knowledge bases by id.
    pub knowledge_bases: BTreeMap<String, KnowledgeBaseSpec>,
    /// Collaborators by name.
    pub collaborators: BTreeMap<String, CollaboratorSpec>,
}

/// What Bedrock holds for the agent (read with GetAgent and the List calls).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Existing {
    /// The agent's id and settings, when it exists.
    pub agent: Option<(String, AgentSettings)>,
    /// Action groups by name, with their ids.
    pub action_groups: BTreeMap<String, (String, ActionGroupSpec)>,
    /// Associated knowledge bases by id.
    pub knowledge_bases: BTreeMap<String, KnowledgeBaseSpec>,
    /// Associated collaborators by name, with their ids.
    pub collaborators: BTreeMap<String, (String, CollaboratorSpec)>,
    /// Whether the working draft was prepared after its last change.
    pub prepared: bool,
    /// The publication alias and the agent version it routes to, when it exists.
    pub alias: Option<(String, String)>,
}

/// One Bedrock Agents call of a plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "call", rename_all = "PascalCase", rename_all_fields = "camelCase")]
pub enum Call {
    /// `CreateAgent`.
    CreateAgent {
        /// `agentName`.
        agent_name: String,
        /// The settings.
        #[serde(serialize_with = "by_name")]
        settings: AgentSettings,
    },
    /// `UpdateAgent` with the whole desired settings.
    UpdateAgent {
        /// Members that change, with their new values (`null`: removed).
        changes: BTreeMap<String, Value>,
        /// The whole desired settings, which the call sends.
        #[serde(skip)]
        settings: AgentSettings,
    },
    /// `CreateAgentActionGroup`.
    CreateAgentActionGroup(ActionGroupSpec),
    /// `UpdateAgentActionGroup`.
    UpdateAgentActionGroup {
        /// `actionGroupId`.
        id: String,
        /// The new definition.
        spec: ActionGroupSpec,
    },
    /// `DeleteAgentActionGroup`.
    DeleteAgentActionGroup {
        /// `actionGroupId`.
        id: String,
        /// Its name, for people.
        name: String,
    },
    /// `AssociateAgentKnowledgeBase` (or `UpdateAgentKnowledgeBase` when associated).
    AssociateAgentKnowledgeBase(KnowledgeBaseSpec),
    /// `DisassociateAgentKnowledgeBase`.
    DisassociateAgentKnowledgeBase {
        /// `knowledgeBaseId`.
        id: String,
    },
    /// `AssociateAgentCollaborator`.
    AssociateAgentCollaborator(CollaboratorSpec),
    /// `DisassociateAgentCollaborator` (an association changes by re-associating).
    DisassociateAgentCollaborator {
        /// `collaboratorId`.
        id: String,
        /// Its name, for people.
        name: String,
    },
    /// `PrepareAgent`, then wait for `PREPARED`.
    PrepareAgent,
    /// `CreateAgentAlias` (a new version) or `UpdateAgentAlias` to the new version.
    PublishAlias,
}

impl Desired {
    /// The desired state of a publication: the resolution's `inlineAgent` as a
    /// persistent agent (`description` is the registry agent's; `aliases` are the alias
    /// ARNs of the collaborators' own publications, by collaborator name).
    pub fn from_resolution(
        resolution: &Resolution,
        description: Option<&str>,
        aliases: &BTreeMap<String, String>,
    ) -> Self {
        let inline = &resolution.inline_agent;
        let agent = &inline.agent;
        let settings = AgentSettings {
            instruction: Some(agent.instruction.clone()),
            foundation_model: Some(agent.foundation_model.clone()),
            description: description.map(str::to_owned),
            agent_collaboration: Some(
                agent.agent_collaboration.unwrap_or(AgentCollaboration::Disabled),
            ),
            bedrock: BedrockSettings {
                idle_session_ttl_in_seconds: Some(
                    agent.bedrock.idle_session_ttl_in_seconds.unwrap_or(DEFAULT_IDLE_TTL),
                ),
                ..agent.bedrock.clone()
            },
            orchestration: OrchestrationSettings {
                orchestration_type: Some(
                    inline.orchestration.orchestration_type.unwrap_or(OrchestrationType::Default),
                ),
                // Inline agents only: `CreateAgent` has no such member.
                bedrock_model_configurations: None,
                ..inline.orchestration.clone()
            },
        };
        let action_groups = agent
            .action_groups
            .iter()
            .map(|g| {
                let executor = match &g.action_group_executor {
                    ActionGroupExecutor::Lambda(arn) => serde_json::json!({"lambda": arn}),
                    ActionGroupExecutor::CustomControl(_) => {
                        serde_json::json!({"customControl": "RETURN_CONTROL"})
                    }
                };
                let spec = ActionGroupSpec {
                    name: g.action_group_name.clone(),
                    description: g.description.clone(),
                    executor,
                    function_schema: json(&g.function_schema),
                };
                (spec.name.clone(), spec)
            })
            .collect();
        let knowledge_bases = agent
            .knowledge_bases
            .iter()
            .map(|kb| {
                let spec = KnowledgeBaseSpec {
                    id: kb.knowledge_base_id.clone(),
                    description: kb.description.clone(),
                };
                (spec.id.clone(), spec)
            })
            .collect();
        let collaborators = agent
            .collaborator_configurations
            .iter()
            .filter_map(|c| {
                let alias = c
                    .agent_alias_arn
                    .clone()
                    .or_else(|| aliases.get(&c.collaborator_name).cloned())?;
                let spec = CollaboratorSpec {
                    name: c.collaborator_name.clone(),
                    alias_arn: alias,
                    instruction: c.collaborator_instruction.clone(),
                    relay: json(&c.relay_conversation_history)
                        .as_str()
                        .unwrap_or("DISABLED")
                        .to_owned(),
                };
                Some((spec.name.clone(), spec))
            })
            .collect();
        Self {
            agent_name: agent.agent_name.clone(),
            settings,
            action_groups,
            knowledge_bases,
            collaborators,
        }
    }
}

/// The calls that make `existing` match `desired`, in the order to make them: the
/// agent, action groups (deletes first, so a renamed group never clashes), knowledge
/// bases, collaborators, then `PrepareAgent` and the alias when anything changed (or the
/// draft was never prepared, or no alias exists yet). Empty when nothing differs.
pub fn plan(desired: &Desired, existing: &Existing) -> Vec<Call> {
    let mut calls = Vec::new();
    match &existing.agent {
        None => calls.push(Call::CreateAgent {
            agent_name: desired.agent_name.clone(),
            settings: desired.settings.clone(),
        }),
        Some((_, current)) => {
            let changes = current.changes_to(&desired.settings);
            if !changes.is_empty() {
                calls.push(Call::UpdateAgent { changes, settings: desired.settings.clone() });
            }
        }
    }
    for (name, (id, _)) in &existing.action_groups {
        if !desired.action_groups.contains_key(name) {
            calls.push(Call::DeleteAgentActionGroup { id: id.clone(), name: name.clone() });
        }
    }
    for (name, spec) in &desired.action_groups {
        match existing.action_groups.get(name) {
            None => calls.push(Call::CreateAgentActionGroup(spec.clone())),
            Some((id, current)) if current != spec => {
                calls.push(Call::UpdateAgentActionGroup { id: id.clone(), spec: spec.clone() });
            }
            Some(_) => {}
        }
    }
    for id in existing.knowledge_bases.keys() {
        if !desired.knowledge_bases.contains_key(id) {
            calls.push(Call::DisassociateAgentKnowledgeBase { id: id.clone() });
        }
    }
    for (id, spec) in &desired.knowledge_bases {
        if existing.knowledge_bases.get(id) != Some(spec) {
            calls.push(Call::AssociateAgentKnowledgeBase(spec.clone()));
        }
    }
    for (name, (id, current)) in &existing.collaborators {
        if desired.collaborators.get(name) != Some(current) {
            calls.push(Call::DisassociateAgentCollaborator { id: id.clone(), name: name.clone() });
        }
    }
    for (name, spec) in &desired.collaborators {
        if existing.collaborators.get(name).map(|(_, c)| c) != Some(spec) {
            calls.push(Call::AssociateAgentCollaborator(spec.clone()));
        }
    }
    if !calls.is_empty() || !existing.prepared || existing.alias.is_none() {
        calls.push(Call::PrepareAgent);
        calls.push(Call::PublishAlias);
    }
    calls
}

/// The state Bedrock is in after `calls` succeed on `existing` (ids are made up in
/// order; versions count up): what the next publish reads back.
pub fn apply(existing: &Existing, calls: &[Call]) -> Existing {
    let mut state = existing.clone();
    let mut next_id = 0;
    let mut fresh = |prefix: &str| {
        next_id += 1;
        format!("{prefix}{next_id:05}")
    };
    for call in calls {
        match call {
            Call::CreateAgent { settings, .. } => {
                state.agent = Some((fresh("AGENT"), settings.clone()));
                state.prepared = false;
            }
            Call::UpdateAgent { settings, .. } => {
                if let Some((_, current)) = state.agent.as_mut() {
                    *current = settings.clone();
                }
                state.prepared = false;
            }
            Call::CreateAgentActionGroup(spec) => {
                state.action_groups.insert(spec.name.clone(), (fresh("AG"), spec.clone()));
                state.prepared = false;
            }
            Call::UpdateAgentActionGroup { id, spec } => {
                state.action_groups.insert(spec.name.clone(), (id.clone(), spec.clone()));
                state.prepared = false;
            }
            Call::DeleteAgentActionGroup { name, .. } => {
                state.action_groups.remove(name);
                state.prepared = false;
            }
            Call::AssociateAgentKnowledgeBase(spec) => {
                state.knowledge_bases.insert(spec.id.clone(), spec.clone());
                state.prepared = false;
            }
            Call::DisassociateAgentKnowledgeBase { id } => {
                state.knowledge_bases.remove(id);
                state.prepared = false;
            }
            Call::AssociateAgentCollaborator(spec) => {
                state.collaborators.insert(spec.name.clone(), (fresh("COLLAB"), spec.clone()));
                state.prepared = false;
            }
            Call::DisassociateAgentCollaborator { name, .. } => {
                state.collaborators.remove(name);
                state.prepared = false;
            }
            Call::PrepareAgent => state.prepared = true,
            Call::PublishAlias => {
                let version =
                    state.alias.as_ref().and_then(|(_, v)| v.parse::<u32>().ok()).unwrap_or(0) + 1;
                let alias_id =
                    state.alias.as_ref().map_or_else(|| fresh("ALIAS"), |(id, _)| id.clone());
                state.alias = Some((alias_id, version.to_string()));
            }
        }
    }
    state
}
