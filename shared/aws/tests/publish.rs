#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Publishing against Bedrock Agents. The local AWS-API server (moto) answers
//! CreateAgent and GetAgent but not the action-group, knowledge-base, prepare and alias
//! calls a publish needs, so this test serves them in process: a small stateful Bedrock
//! built on `aws-smithy-mocks` (AWS's SDK test support), the real SDK client in front
//! of it. It checks what the publisher sends and that publishing is idempotent and
//! completes after a failure part-way.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_sdk_bedrockagent::Client;
use aws_sdk_bedrockagent::operation::create_agent_action_group::CreateAgentActionGroupError;
use aws_sdk_bedrockagent::operation::get_agent::GetAgentError;
use aws_sdk_bedrockagent::operation::{
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
    AgentAliasRoutingConfigurationListItem, AgentAliasStatus, AgentAliasSummary,
    AgentKnowledgeBase, AgentKnowledgeBaseSummary, AgentStatus, KnowledgeBaseState,
};
use aws_smithy_mocks::{MockResponse, MockResponseInterceptor, Rule, RuleMode, mock};
use registry_aws::plan::{ActionGroupSpec, Call, Desired, KnowledgeBaseSpec, plan};
use registry_aws::{Aws, AwsError, Endpoints, Poll};
use serde_json::{Value, json};

/// What the in-process Bedrock holds.
#[derive(Default)]
struct State {
    agent: Option<Agent>,
    groups: BTreeMap<String, AgentActionGroup>,
    knowledge_bases: BTreeMap<String, String>,
    alias: Option<AgentAlias>,
    versions: u32,
    next_id: u32,
    /// Mutating calls made, by operation name.
    mutations: Vec<&'static str>,
    /// Fail the next CreateAgentActionGroup (a throttle part-way through a publish).
    fail_next_group: bool,
}

type Shared = Arc<Mutex<State>>;

const AGENT_ID: &str = "AGENT00001";

fn now() -> DateTime {
    DateTime::from_secs(1_790_000_000)
}

impl State {
    fn id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{:05}", self.next_id)
    }

    fn changed(&mut self, call: &'static str) {
        self.mutations.push(call);
        if let Some(agent) = self.agent.as_mut() {
            agent.agent_status = AgentStatus::NotPrepared;
        }
    }
}

fn agent(name: &str, status: AgentStatus) -> aws_sdk_bedrockagent::types::builders::AgentBuilder {
    Agent::builder()
        .agent_id(AGENT_ID)
        .agent_name(name)
        .agent_arn(format!("arn:aws:bedrock:us-east-1:123456789012:agent/{AGENT_ID}"))
        .agent_version("DRAFT")
        .agent_status(status)
        .idle_session_ttl_in_seconds(600)
        .agent_resource_role_arn("arn:aws:iam::123456789012:role/agent")
        .created_at(now())
        .updated_at(now())
}

/// The rules of the in-process Bedrock, all over `state`.
fn rules(state: &Shared) -> Vec<Rule> {
    let s = state.clone();
    let get_agent = mock!(Client::get_agent).then_compute_response(move |_| {
        match s.lock().unwrap().agent.clone() {
            Some(agent) => MockResponse::Output(GetAgentOutput::builder().agent(agent).build()),
            None => MockResponse::Error(GetAgentError::ResourceNotFoundException(
                ResourceNotFoundException::builder().message("no such agent").build(),
            )),
        }
    });
    let s = state.clone();
    let create_agent = mock!(Client::create_agent).then_compute_output(move |input| {
        let mut st = s.lock().unwrap();
        st.changed("CreateAgent");
        let created = agent(input.agent_name().unwrap(), AgentStatus::NotPrepared)
            .set_instruction(input.instruction().map(str::to_owned))
            .set_foundation_model(input.foundation_model().map(str::to_owned))
            .set_description(input.description().map(str::to_owned))
            .idle_session_ttl_in_seconds(input.idle_session_ttl_in_seconds().unwrap_or(600))
            .set_orchestration_type(input.orchestration_type().cloned())
            .set_agent_collaboration(input.agent_collaboration().cloned())
            .build()
            .unwrap();
        st.agent = Some(created.clone());
        CreateAgentOutput::builder().agent(created).build()
    });
    let s = state.clone();
    let update_agent = mock!(Client::update_agent).then_compute_output(move |input| {
        let mut st = s.lock().unwrap();
        st.changed("UpdateAgent");
        let updated = agent(input.agent_name().unwrap(), AgentStatus::NotPrepared)
            .set_instruction(input.instruction().map(str::to_owned))
            .set_foundation_model(input.foundation_model().map(str::to_owned))
            .set_description(input.description().map(str::to_owned))
            .idle_session_ttl_in_seconds(input.idle_session_ttl_in_seconds().unwrap_or(600))
            .set_orchestration_type(input.orchestration_type().cloned())
            .set_agent_collaboration(input.agent_collaboration().cloned())
            .build()
            .unwrap();
        st.agent = Some(updated.clone());
        UpdateAgentOutput::builder().agent(updated).build()
    });
    let s = state.clone();
    let prepare = mock!(Client::prepare_agent).then_compute_output(move |_| {
        let mut st = s.lock().unwrap();
        st.mutations.push("PrepareAgent");
        if let Some(agent) = st.agent.as_mut() {
            agent.agent_status = AgentStatus::Prepared;
        }
        PrepareAgentOutput::builder()
            .agent_id(AGENT_ID)
            .agent_status(AgentStatus::Preparing)
            .agent_version("DRAFT")
            .prepared_at(now())
            .build()
            .unwrap()
    });
    let s = state.clone();
    let list_groups = mock!(Client::list_agent_action_groups).then_compute_output(move |_| {
        let st = s.lock().unwrap();
        let summaries = st
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
        let group = st.groups.get(input.action_group_id().unwrap()).cloned().unwrap();
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
            st.changed("CreateAgentActionGroup");
            let id = st.id("AG");
            let group = AgentActionGroup::builder()
                .agent_id(AGENT_ID)
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
            st.groups.insert(id, group.clone());
            MockResponse::Output(
                CreateAgentActionGroupOutput::builder().agent_action_group(group).build(),
            )
        });
    let s = state.clone();
    let update_group = mock!(Client::update_agent_action_group).then_compute_output(move |input| {
        let mut st = s.lock().unwrap();
        st.changed("UpdateAgentActionGroup");
        let id = input.action_group_id().unwrap().to_owned();
        let mut group = st.groups.get(&id).cloned().unwrap();
        group.description = input.description().map(str::to_owned);
        group.action_group_executor = input.action_group_executor().cloned();
        group.function_schema = input.function_schema().cloned();
        st.groups.insert(id, group.clone());
        UpdateAgentActionGroupOutput::builder().agent_action_group(group).build()
    });
    let s = state.clone();
    let delete_group = mock!(Client::delete_agent_action_group).then_compute_output(move |input| {
        let mut st = s.lock().unwrap();
        st.changed("DeleteAgentActionGroup");
        st.groups.remove(input.action_group_id().unwrap());
        DeleteAgentActionGroupOutput::builder().build()
    });
    let s = state.clone();
    let list_kbs = mock!(Client::list_agent_knowledge_bases).then_compute_output(move |_| {
        let st = s.lock().unwrap();
        let summaries = st
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
            st.changed("AssociateAgentKnowledgeBase");
            let (id, description) =
                (input.knowledge_base_id().unwrap(), input.description().unwrap());
            st.knowledge_bases.insert(id.to_owned(), description.to_owned());
            let kb = AgentKnowledgeBase::builder()
                .agent_id(AGENT_ID)
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
    let list_collaborators = mock!(Client::list_agent_collaborators).then_compute_output(|_| {
        ListAgentCollaboratorsOutput::builder()
            .set_agent_collaborator_summaries(Some(Vec::new()))
            .build()
            .unwrap()
    });
    let s = state.clone();
    let list_aliases = mock!(Client::list_agent_aliases).then_compute_output(move |_| {
        let st = s.lock().unwrap();
        let summaries = st
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
        st.versions += 1;
        let id = st.id("ALIAS");
        let alias = alias(&id, input.agent_alias_name().unwrap(), st.versions);
        st.alias = Some(alias.clone());
        CreateAgentAliasOutput::builder().agent_alias(alias).build()
    });
    let s = state.clone();
    let update_alias = mock!(Client::update_agent_alias).then_compute_output(move |input| {
        let mut st = s.lock().unwrap();
        st.mutations.push("UpdateAgentAlias");
        st.versions += 1;
        let alias =
            alias(input.agent_alias_id().unwrap(), input.agent_alias_name().unwrap(), st.versions);
        st.alias = Some(alias.clone());
        UpdateAgentAliasOutput::builder().agent_alias(alias).build()
    });
    let s = state.clone();
    let get_alias = mock!(Client::get_agent_alias).then_compute_output(move |_| {
        let alias = s.lock().unwrap().alias.clone().unwrap();
        GetAgentAliasOutput::builder().agent_alias(alias).build()
    });
    vec![
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
        list_aliases,
        create_alias,
        update_alias,
        get_alias,
    ]
}

fn alias(id: &str, name: &str, version: u32) -> AgentAlias {
    AgentAlias::builder()
        .agent_id(AGENT_ID)
        .agent_alias_id(id)
        .agent_alias_name(name)
        .agent_alias_arn(format!(
            "arn:aws:bedrock:us-east-1:123456789012:agent-alias/{AGENT_ID}/{id}"
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

/// The registry's AWS clients with the in-process Bedrock behind the Bedrock client.
fn aws(state: &Shared) -> Aws {
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
    Aws::with_bedrock(Endpoints::default(), Client::from_conf(config))
}

const POLL: Poll = Poll { attempts: 3, interval: Duration::ZERO };
const ROLE: &str = "arn:aws:iam::123456789012:role/agent";

fn schema(function: &str) -> Value {
    json!({"functions": [{
        "name": function,
        "description": format!("{function} things"),
        "parameters": {"city": {"type": "string", "description": "City name", "required": true}},
    }]})
}

/// A weather agent with a Lambda tool, a return-of-control tool and a knowledge base.
fn desired() -> Desired {
    let settings = [
        ("instruction", json!("You answer questions about the weather, briefly and politely.")),
        ("foundationModel", json!("anthropic.claude-3-haiku-20240307-v1:0")),
        ("description", json!("Weather answers")),
        ("idleSessionTTLInSeconds", json!(600)),
        ("orchestrationType", json!("DEFAULT")),
        ("agentCollaboration", json!("DISABLED")),
    ];
    let groups = [
        ActionGroupSpec {
            name: "weather_basic".into(),
            description: "Current weather".into(),
            executor: json!({"lambda": "arn:aws:lambda:us-east-1:123456789012:function:weather-basic"}),
            function_schema: schema("current"),
        },
        ActionGroupSpec {
            name: "browser".into(),
            description: "Runs in the caller".into(),
            executor: json!({"customControl": "RETURN_CONTROL"}),
            function_schema: schema("open"),
        },
    ];
    Desired {
        agent_name: "weather-agent".into(),
        settings: settings.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        action_groups: groups.into_iter().map(|g| (g.name.clone(), g)).collect(),
        knowledge_bases: BTreeMap::from([(
            "KB12345678".to_owned(),
            KnowledgeBaseSpec { id: "KB12345678".into(), description: "Climate notes".into() },
        )]),
        collaborators: BTreeMap::new(),
    }
}

/// Plans against what Bedrock holds now and applies: one publish.
async fn publish(
    aws: &Aws,
    desired: &Desired,
) -> Result<(Vec<Call>, registry_aws::Published), AwsError> {
    let existing = aws.read_agent(AGENT_ID).await?;
    let calls = plan(desired, &existing);
    let published = aws.apply_plan(desired, &existing, &calls, Some(ROLE), POLL).await?;
    Ok((calls, published))
}

fn names(calls: &[Call]) -> Vec<String> {
    calls
        .iter()
        .map(|c| serde_json::to_value(c).unwrap()["call"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_first_publish_creates_everything_and_a_second_changes_nothing() {
    let state = Shared::default();
    let aws = aws(&state);
    let desired = desired();

    let (calls, published) = publish(&aws, &desired).await.unwrap();
    assert_eq!(
        names(&calls),
        [
            "CreateAgent",
            "CreateAgentActionGroup",
            "CreateAgentActionGroup",
            "AssociateAgentKnowledgeBase",
            "PrepareAgent",
            "PublishAlias"
        ]
    );
    assert_eq!(published.agent_id, AGENT_ID);
    assert_eq!(published.agent_version, "1");
    assert!(published.alias_arn.ends_with(&format!("/{AGENT_ID}/{}", published.alias_id)));
    {
        let st = state.lock().unwrap();
        let agent = st.agent.as_ref().unwrap();
        assert_eq!(agent.instruction.as_deref(), desired.settings["instruction"].as_str());
        assert_eq!(agent.idle_session_ttl_in_seconds, 600);
        let executors: BTreeMap<String, String> = st
            .groups
            .values()
            .map(|g| {
                (
                    g.action_group_name.clone(),
                    format!("{:?}", g.action_group_executor.as_ref().unwrap()),
                )
            })
            .collect();
        assert!(executors["weather_basic"].contains("function:weather-basic"), "{executors:?}");
        assert!(executors["browser"].contains("ReturnControl"), "{executors:?}");
        assert_eq!(st.knowledge_bases["KB12345678"], "Climate notes");
    }

    // Read back, Bedrock matches: no mutating call, the same publication.
    let before = state.lock().unwrap().mutations.len();
    let (calls, again) = publish(&aws, &desired).await.unwrap();
    assert!(calls.is_empty(), "{calls:?}");
    assert_eq!(state.lock().unwrap().mutations.len(), before, "no mutating call");
    assert_eq!(again, published);
}

#[tokio::test]
async fn a_change_updates_in_place_and_moves_the_alias_to_a_new_version() {
    let state = Shared::default();
    let aws = aws(&state);
    let mut desired = desired();
    let first = publish(&aws, &desired).await.unwrap().1;

    desired.settings.insert(
        "instruction".into(),
        json!("You answer weather questions in one sentence, always."),
    );
    desired.action_groups.remove("browser");
    let weather = desired.action_groups.get_mut("weather_basic").unwrap();
    weather.description = "Current weather, by city".into();

    let (calls, second) = publish(&aws, &desired).await.unwrap();
    assert_eq!(
        names(&calls),
        [
            "UpdateAgent",
            "DeleteAgentActionGroup",
            "UpdateAgentActionGroup",
            "PrepareAgent",
            "PublishAlias"
        ]
    );
    assert_eq!(second.alias_id, first.alias_id, "the alias moves, it is not replaced");
    assert_eq!(second.agent_version, "2");
    assert_eq!(state.lock().unwrap().groups.len(), 1);
    assert!(publish(&aws, &desired).await.unwrap().0.is_empty(), "converged");
}

#[tokio::test]
async fn a_publish_that_fails_part_way_is_completed_by_the_next() {
    let state = Shared::default();
    let aws = aws(&state);
    let desired = desired();
    state.lock().unwrap().fail_next_group = true;

    let err = publish(&aws, &desired).await.unwrap_err();
    assert!(err.to_string().contains("CreateAgentActionGroup"), "{err}");
    assert!(state.lock().unwrap().alias.is_none(), "nothing published yet");

    let (calls, published) = publish(&aws, &desired).await.unwrap();
    assert_eq!(
        names(&calls),
        [
            "CreateAgentActionGroup",
            "CreateAgentActionGroup",
            "AssociateAgentKnowledgeBase",
            "PrepareAgent",
            "PublishAlias"
        ],
        "the agent exists already; the rest is made"
    );
    assert_eq!(published.agent_version, "1");
    assert!(publish(&aws, &desired).await.unwrap().0.is_empty());
}

#[tokio::test]
async fn settings_a_persistent_agent_cannot_take_yet_are_refused_before_any_call() {
    let state = Shared::default();
    let aws = aws(&state);
    let mut desired = desired();
    desired
        .settings
        .insert("promptOverrideConfiguration".into(), json!({"promptConfigurations": []}));
    let err = publish(&aws, &desired).await.unwrap_err();
    let AwsError::Invalid(violations) = err else { panic!("{err}") };
    assert_eq!(violations[0].path, "/inlineAgent/promptOverrideConfiguration");
    assert!(state.lock().unwrap().mutations.is_empty());
}
