#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]
//! An in-process Bedrock Agents for tests. The local AWS-API server (moto) answers
//! CreateAgent and GetAgent but not the action-group, knowledge-base, prepare and alias
//! calls a publish needs, so these are served here: a small stateful Bedrock on
//! `aws-smithy-mocks` (AWS's SDK test support), the real SDK client in front of it.
//! Shared by registry-aws's and registry-api's tests (`#[path]`-included).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use aws_sdk_bedrockagent::Client;
use aws_sdk_bedrockagent::operation::create_agent_action_group::CreateAgentActionGroupError;
use aws_sdk_bedrockagent::operation::delete_agent::{DeleteAgentError, DeleteAgentOutput};
use aws_sdk_bedrockagent::operation::get_agent::GetAgentError;
use aws_sdk_bedrockagent::operation::{
    associate_agent_collaborator::AssociateAgentCollaboratorOutput,
    associate_agent_knowledge_base::AssociateAgentKnowledgeBaseOutput,
    create_agent::CreateAgentOutput, create_agent_action_group::CreateAgentActionGroupOutput,
    create_agent_alias::CreateAgentAliasOutput,
    delete_agent_action_group::DeleteAgentActionGroupOutput, get_agent::GetAgentOutput,
    get_agent_action_group::GetAgentActionGroupOutput, get_agent_alias::GetAgentAliasOutput,
    list_agent_action_groups::ListAgentActionGroupsOutput,
    list_agent_aliases::ListAgentAliasesOutput,
    list_agent_collaborators::ListAgentCollaboratorsOutput,
    list_agent_knowledge_bases::ListAgentKnowledgeBasesOutput, prepare_agent::PrepareAgentOutput,
    update_agent::UpdateAgentOutput, update_agent_action_group::UpdateAgentActionGroupOutput,
    update_agent_alias::UpdateAgentAliasOutput,
};
use aws_sdk_bedrockagent::primitives::DateTime;
use aws_sdk_bedrockagent::types::error::{ResourceNotFoundException, ThrottlingException};
use aws_sdk_bedrockagent::types::{
    ActionGroupState, ActionGroupSummary, Agent, AgentActionGroup, AgentAlias,
    AgentAliasRoutingConfigurationListItem, AgentAliasStatus, AgentAliasSummary, AgentCollaborator,
    AgentCollaboratorSummary, AgentKnowledgeBase, AgentKnowledgeBaseSummary, AgentStatus,
    KnowledgeBaseState,
};
use aws_smithy_mocks::{MockResponse, MockResponseInterceptor, Rule, RuleMode, mock};

/// One agent the in-process Bedrock holds, with its draft's parts.
pub struct Held {
    pub agent: Agent,
    /// Action groups by id.
    pub groups: BTreeMap<String, AgentActionGroup>,
    /// Knowledge-base descriptions by id.
    pub knowledge_bases: BTreeMap<String, String>,
    /// Collaborators by id.
    pub collaborators: BTreeMap<String, AgentCollaboratorSummary>,
    pub alias: Option<AgentAlias>,
    versions: u32,
}

/// What the in-process Bedrock holds.
#[derive(Default)]
pub struct State {
    /// Agents by id.
    pub agents: BTreeMap<String, Held>,
    next_id: u32,
    /// Mutating calls made, by operation name.
    pub mutations: Vec<&'static str>,
    /// Fail the next CreateAgentActionGroup (a throttle part-way through a publish).
    pub fail_next_group: bool,
    /// PrepareAgent leaves agents `PREPARING` (a preparation that never ends).
    pub stall_prepare: bool,
}

pub type Shared = Arc<Mutex<State>>;

/// The id of the first agent created.
pub const AGENT_ID: &str = "AGENT00001";

fn now() -> DateTime {
    DateTime::from_secs(1_790_000_000)
}

impl State {
    fn id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{:05}", self.next_id)
    }

    /// The agent `id`'s draft, changed by `call` (so no longer prepared).
    fn change(&mut self, id: &str, call: &'static str) -> &mut Held {
        self.mutations.push(call);
        let held = self.agents.get_mut(id).unwrap();
        held.agent.agent_status = AgentStatus::NotPrepared;
        held
    }

    /// The one agent held (tests that publish a single agent).
    pub fn only(&self) -> &Held {
        assert_eq!(self.agents.len(), 1, "exactly one agent");
        self.agents.values().next().unwrap()
    }
}

fn not_found() -> ResourceNotFoundException {
    ResourceNotFoundException::builder().message("no such agent").build()
}

fn agent(id: &str, name: &str) -> aws_sdk_bedrockagent::types::builders::AgentBuilder {
    Agent::builder()
        .agent_id(id)
        .agent_name(name)
        .agent_arn(format!("arn:aws:bedrock:us-east-1:123456789012:agent/{id}"))
        .agent_version("DRAFT")
        .agent_status(AgentStatus::NotPrepared)
        .idle_session_ttl_in_seconds(600)
        .agent_resource_role_arn("arn:aws:iam::123456789012:role/agent")
        .created_at(now())
        .updated_at(now())
}

/// Sets the settings a CreateAgent or UpdateAgent input carries.
macro_rules! settings {
    ($builder:expr, $input:expr) => {
        $builder
            .set_instruction($input.instruction().map(str::to_owned))
            .set_foundation_model($input.foundation_model().map(str::to_owned))
            .set_description($input.description().map(str::to_owned))
            .idle_session_ttl_in_seconds($input.idle_session_ttl_in_seconds().unwrap_or(600))
            .set_orchestration_type($input.orchestration_type().cloned())
            .set_agent_collaboration($input.agent_collaboration().cloned())
            .build()
            .unwrap()
    };
}

/// The rules of the in-process Bedrock, all over `state`.
fn rules(state: &Shared) -> Vec<Rule> {
    let s = state.clone();
    let get_agent = mock!(Client::get_agent).then_compute_response(move |input| {
        match s.lock().unwrap().agents.get(input.agent_id().unwrap()) {
            Some(held) => {
                MockResponse::Output(GetAgentOutput::builder().agent(held.agent.clone()).build())
            }
            None => MockResponse::Error(GetAgentError::ResourceNotFoundException(not_found())),
        }
    });
    let s = state.clone();
    let create_agent = mock!(Client::create_agent).then_compute_output(move |input| {
        let mut st = s.lock().unwrap();
        st.mutations.push("CreateAgent");
        let id = st.id("AGENT");
        let created = settings!(agent(&id, input.agent_name().unwrap()), input);
        let held = Held {
            agent: created.clone(),
            groups: BTreeMap::new(),
            knowledge_bases: BTreeMap::new(),
            collaborators: BTreeMap::new(),
            alias: None,
            versions: 0,
        };
        st.agents.insert(id, held);
        CreateAgentOutput::builder().agent(created).build()
    });
    let s = state.clone();
    let update_agent = mock!(Client::update_agent).then_compute_output(move |input| {
        let mut st = s.lock().unwrap();
        let id = input.agent_id().unwrap();
        let updated = settings!(agent(id, input.agent_name().unwrap()), input);
        st.change(id, "UpdateAgent").agent = updated.clone();
        UpdateAgentOutput::builder().agent(updated).build()
    });
    let s = state.clone();
    let prepare = mock!(Client::prepare_agent).then_compute_output(move |input| {
        let mut st = s.lock().unwrap();
        st.mutations.push("PrepareAgent");
        let id = input.agent_id().unwrap();
        let status = if st.stall_prepare { AgentStatus::Preparing } else { AgentStatus::Prepared };
        st.agents.get_mut(id).unwrap().agent.agent_status = status;
        PrepareAgentOutput::builder()
            .agent_id(id)
            .agent_status(AgentStatus::Preparing)
            .agent_version("DRAFT")
            .prepared_at(now())
            .build()
            .unwrap()
    });
    let s = state.clone();
    let list_groups = mock!(Client::list_agent_action_groups).then_compute_output(move |input| {
        let st = s.lock().unwrap();
        let summaries = st.agents[input.agent_id().unwrap()]
            .groups
            .values()
            .map(|g| {
                ActionGroupSummary::builder()
                    .action_group_id(&g.action_group_id)
                    .action_group_name(&g.action_group_name)
                    .action_group_state(ActionGroupState::Enabled)
                    .updated_at(now())
                    .build()
                    .unwrap()
            })
            .collect();
        ListAgentActionGroupsOutput::builder()
            .set_action_group_summaries(Some(summaries))
            .build()
            .unwrap()
    });
    let s = state.clone();
    let get_group = mock!(Client::get_agent_action_group).then_compute_output(move |input| {
        let st = s.lock().unwrap();
        let held = &st.agents[input.agent_id().unwrap()];
        let group = held.groups.get(input.action_group_id().unwrap()).cloned().unwrap();
        GetAgentActionGroupOutput::builder().agent_action_group(group).build()
    });
    let s = state.clone();
    let create_group =
        mock!(Client::create_agent_action_group).then_compute_response(move |input| {
            let mut st = s.lock().unwrap();
            if std::mem::take(&mut st.fail_next_group) {
                return MockResponse::Error(CreateAgentActionGroupError::ThrottlingException(
                    ThrottlingException::builder().message("slow down").build(),
                ));
            }
            let id = st.id("AG");
            let agent_id = input.agent_id().unwrap();
            let group = AgentActionGroup::builder()
                .agent_id(agent_id)
                .agent_version("DRAFT")
                .action_group_id(&id)
                .action_group_name(input.action_group_name().unwrap())
                .set_description(input.description().map(str::to_owned))
                .set_action_group_executor(input.action_group_executor().cloned())
                .set_function_schema(input.function_schema().cloned())
                .action_group_state(ActionGroupState::Enabled)
                .created_at(now())
                .updated_at(now())
                .build()
                .unwrap();
            st.change(agent_id, "CreateAgentActionGroup").groups.insert(id, group.clone());
            MockResponse::Output(
                CreateAgentActionGroupOutput::builder().agent_action_group(group).build(),
            )
        });
    let s = state.clone();
    let update_group = mock!(Client::update_agent_action_group).then_compute_output(move |input| {
        let mut st = s.lock().unwrap();
        let held = st.change(input.agent_id().unwrap(), "UpdateAgentActionGroup");
        let group = held.groups.get_mut(input.action_group_id().unwrap()).unwrap();
        group.description = input.description().map(str::to_owned);
        group.action_group_executor = input.action_group_executor().cloned();
        group.function_schema = input.function_schema().cloned();
        UpdateAgentActionGroupOutput::builder().agent_action_group(group.clone()).build()
    });
    let s = state.clone();
    let delete_group = mock!(Client::delete_agent_action_group).then_compute_output(move |input| {
        let mut st = s.lock().unwrap();
        let held = st.change(input.agent_id().unwrap(), "DeleteAgentActionGroup");
        held.groups.remove(input.action_group_id().unwrap());
        DeleteAgentActionGroupOutput::builder().build()
    });
    let s = state.clone();
    let list_kbs = mock!(Client::list_agent_knowledge_bases).then_compute_output(move |input| {
        let st = s.lock().unwrap();
        let summaries = st.agents[input.agent_id().unwrap()]
            .knowledge_bases
            .iter()
            .map(|(id, description)| {
                AgentKnowledgeBaseSummary::builder()
                    .knowledge_base_id(id)
                    .description(description)
                    .knowledge_base_state(KnowledgeBaseState::Enabled)
                    .updated_at(now())
                    .build()
                    .unwrap()
            })
            .collect();
        ListAgentKnowledgeBasesOutput::builder()
            .set_agent_knowledge_base_summaries(Some(summaries))
            .build()
            .unwrap()
    });
    let s = state.clone();
    let associate_kb =
        mock!(Client::associate_agent_knowledge_base).then_compute_output(move |input| {
            let mut st = s.lock().unwrap();
            let agent_id = input.agent_id().unwrap();
            let (id, description) =
                (input.knowledge_base_id().unwrap(), input.description().unwrap());
            let held = st.change(agent_id, "AssociateAgentKnowledgeBase");
            held.knowledge_bases.insert(id.to_owned(), description.to_owned());
            let kb = AgentKnowledgeBase::builder()
                .agent_id(agent_id)
                .agent_version("DRAFT")
                .knowledge_base_id(id)
                .description(description)
                .knowledge_base_state(KnowledgeBaseState::Enabled)
                .created_at(now())
                .updated_at(now())
                .build()
                .unwrap();
            AssociateAgentKnowledgeBaseOutput::builder().agent_knowledge_base(kb).build()
        });
    let s = state.clone();
    let list_collaborators =
        mock!(Client::list_agent_collaborators).then_compute_output(move |input| {
            let st = s.lock().unwrap();
            let summaries =
                st.agents[input.agent_id().unwrap()].collaborators.values().cloned().collect();
            ListAgentCollaboratorsOutput::builder()
                .set_agent_collaborator_summaries(Some(summaries))
                .build()
                .unwrap()
        });
    let s = state.clone();
    let associate_collaborator =
        mock!(Client::associate_agent_collaborator).then_compute_output(move |input| {
            let mut st = s.lock().unwrap();
            let id = st.id("COLLAB");
            let agent_id = input.agent_id().unwrap();
            let descriptor = input.agent_descriptor().cloned().unwrap();
            let relay = input.relay_conversation_history().cloned().unwrap();
            let summary = AgentCollaboratorSummary::builder()
                .agent_id(agent_id)
                .agent_version("DRAFT")
                .collaborator_id(&id)
                .agent_descriptor(descriptor.clone())
                .collaboration_instruction(input.collaboration_instruction().unwrap())
                .relay_conversation_history(relay.clone())
                .collaborator_name(input.collaborator_name().unwrap())
                .created_at(now())
                .last_updated_at(now())
                .build()
                .unwrap();
            st.change(agent_id, "AssociateAgentCollaborator")
                .collaborators
                .insert(id.clone(), summary);
            let collaborator = AgentCollaborator::builder()
                .agent_id(agent_id)
                .agent_version("DRAFT")
                .collaborator_id(id)
                .agent_descriptor(descriptor)
                .collaboration_instruction(input.collaboration_instruction().unwrap())
                .relay_conversation_history(relay)
                .collaborator_name(input.collaborator_name().unwrap())
                .created_at(now())
                .last_updated_at(now())
                .build()
                .unwrap();
            AssociateAgentCollaboratorOutput::builder().agent_collaborator(collaborator).build()
        });
    let s = state.clone();
    let list_aliases = mock!(Client::list_agent_aliases).then_compute_output(move |input| {
        let st = s.lock().unwrap();
        let summaries = st.agents[input.agent_id().unwrap()]
            .alias
            .iter()
            .map(|a| {
                AgentAliasSummary::builder()
                    .agent_alias_id(&a.agent_alias_id)
                    .agent_alias_name(&a.agent_alias_name)
                    .agent_alias_status(AgentAliasStatus::Prepared)
                    .set_routing_configuration(Some(a.routing_configuration.clone()))
                    .created_at(now())
                    .updated_at(now())
                    .build()
                    .unwrap()
            })
            .collect();
        ListAgentAliasesOutput::builder()
            .set_agent_alias_summaries(Some(summaries))
            .build()
            .unwrap()
    });
    let s = state.clone();
    let create_alias = mock!(Client::create_agent_alias).then_compute_output(move |input| {
        let mut st = s.lock().unwrap();
        st.mutations.push("CreateAgentAlias");
        let id = st.id("ALIAS");
        let agent_id = input.agent_id().unwrap();
        let held = st.agents.get_mut(agent_id).unwrap();
        held.versions += 1;
        let alias = alias(agent_id, &id, input.agent_alias_name().unwrap(), held.versions);
        held.alias = Some(alias.clone());
        CreateAgentAliasOutput::builder().agent_alias(alias).build()
    });
    let s = state.clone();
    let update_alias = mock!(Client::update_agent_alias).then_compute_output(move |input| {
        let mut st = s.lock().unwrap();
        st.mutations.push("UpdateAgentAlias");
        let agent_id = input.agent_id().unwrap();
        let held = st.agents.get_mut(agent_id).unwrap();
        held.versions += 1;
        let alias = alias(
            agent_id,
            input.agent_alias_id().unwrap(),
            input.agent_alias_name().unwrap(),
            held.versions,
        );
        held.alias = Some(alias.clone());
        UpdateAgentAliasOutput::builder().agent_alias(alias).build()
    });
    let s = state.clone();
    let get_alias = mock!(Client::get_agent_alias).then_compute_output(move |input| {
        let alias = s.lock().unwrap().agents[input.agent_id().unwrap()].alias.clone().unwrap();
        GetAgentAliasOutput::builder().agent_alias(alias).build()
    });
    let s = state.clone();
    let delete_agent = mock!(Client::delete_agent).then_compute_response(move |input| {
        let mut st = s.lock().unwrap();
        let id = input.agent_id().unwrap();
        if st.agents.remove(id).is_none() {
            return MockResponse::Error(DeleteAgentError::ResourceNotFoundException(not_found()));
        }
        st.mutations.push("DeleteAgent");
        MockResponse::Output(
            DeleteAgentOutput::builder()
                .agent_id(id)
                .agent_status(AgentStatus::Deleting)
                .build()
                .unwrap(),
        )
    });
    vec![
        delete_agent,
        get_agent,
        create_agent,
        update_agent,
        prepare,
        list_groups,
        get_group,
        create_group,
        update_group,
        delete_group,
        list_kbs,
        associate_kb,
        list_collaborators,
        associate_collaborator,
        list_aliases,
        create_alias,
        update_alias,
        get_alias,
    ]
}

fn alias(agent_id: &str, id: &str, name: &str, version: u32) -> AgentAlias {
    AgentAlias::builder()
        .agent_id(agent_id)
        .agent_alias_id(id)
        .agent_alias_name(name)
        .agent_alias_arn(format!(
            "arn:aws:bedrock:us-east-1:123456789012:agent-alias/{agent_id}/{id}"
        ))
        .routing_configuration(
            AgentAliasRoutingConfigurationListItem::builder()
                .agent_version(version.to_string())
                .build(),
        )
        .agent_alias_status(AgentAliasStatus::Prepared)
        .created_at(now())
        .updated_at(now())
        .build()
        .unwrap()
}

/// A Bedrock Agents client whose calls `state` answers.
pub fn client(state: &Shared) -> Client {
    let mut interceptor = MockResponseInterceptor::new().rule_mode(RuleMode::MatchAny);
    for rule in &rules(state) {
        interceptor = interceptor.with_rule(rule);
    }
    let config = aws_sdk_bedrockagent::Config::builder()
        .behavior_version_latest()
        .region(aws_sdk_bedrockagent::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_bedrockagent::config::Credentials::new(
            "test", "test", None, None, "test",
        ))
        .http_client(aws_smithy_mocks::create_mock_http_client())
        .interceptor(interceptor)
        .build();
    Client::from_conf(config)
}
