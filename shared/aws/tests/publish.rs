#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Publishing against Bedrock Agents, served in process (see `support/fake_bedrock.rs`
//! for why): what the publisher sends, and that publishing is idempotent and completes
//! after a failure part-way.

#[path = "support/fake_bedrock.rs"]
mod fake_bedrock;

use std::collections::BTreeMap;
use std::time::Duration;

use fake_bedrock::{AGENT_ID, Shared, State};
use registry_aws::plan::{ActionGroupSpec, AgentSettings, Call, Desired, KnowledgeBaseSpec, plan};
use registry_aws::{Aws, AwsError, Endpoints, Poll};
use registry_core::{
    AgentCollaboration, BedrockSettings, OrchestrationSettings, OrchestrationType,
    PromptOverrideConfiguration,
};
use serde_json::{Value, json};

/// The registry's AWS clients with the in-process Bedrock behind the Bedrock client.
fn aws(state: &Shared) -> Aws {
    Aws::with_bedrock(Endpoints::default(), fake_bedrock::client(state))
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
    let settings = AgentSettings {
        instruction: Some("You answer questions about the weather, briefly and politely.".into()),
        foundation_model: Some("anthropic.claude-3-haiku-20240307-v1:0".into()),
        description: Some("Weather answers".into()),
        agent_collaboration: Some(AgentCollaboration::Disabled),
        bedrock: BedrockSettings { idle_session_ttl_in_seconds: Some(600), ..Default::default() },
        orchestration: OrchestrationSettings {
            orchestration_type: Some(OrchestrationType::Default),
            ..Default::default()
        },
    };
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
        settings,
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
        let held = st.only();
        let agent = &held.agent;
        assert_eq!(agent.instruction.as_deref(), desired.settings.instruction.as_deref());
        assert_eq!(agent.idle_session_ttl_in_seconds, 600);
        let executors: BTreeMap<String, String> = held
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
        assert_eq!(held.knowledge_bases["KB12345678"], "Climate notes");
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

    desired.settings.instruction =
        Some("You answer weather questions in one sentence, always.".into());
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
    assert_eq!(state.lock().unwrap().only().groups.len(), 1);
    assert!(publish(&aws, &desired).await.unwrap().0.is_empty(), "converged");
}

/// With `fault` on, a publish fails saying `failure`, publishing nothing; off, one makes `calls`.
async fn fails_then_completes(
    fault: fn(&mut State, bool),
    failure: &str,
    calls: &[&str],
) -> (Aws, Desired) {
    let state = Shared::default();
    let aws = aws(&state);
    let desired = desired();
    fault(&mut state.lock().unwrap(), true);
    let err = publish(&aws, &desired).await.unwrap_err();
    assert!(err.to_string().contains(failure), "{err}");
    assert!(state.lock().unwrap().only().alias.is_none(), "nothing published yet");
    fault(&mut state.lock().unwrap(), false);
    let (made, published) = publish(&aws, &desired).await.unwrap();
    assert_eq!(names(&made), calls, "only what was missing");
    assert_eq!(published.agent_version, "1");
    (aws, desired)
}

#[tokio::test]
async fn a_publish_that_fails_part_way_is_completed_by_the_next() {
    // The agent exists already; the rest is made.
    let rest = [
        "CreateAgentActionGroup",
        "CreateAgentActionGroup",
        "AssociateAgentKnowledgeBase",
        "PrepareAgent",
        "PublishAlias",
    ];
    let fault = |st: &mut State, on| st.fail_next_group = on;
    let (aws, desired) = fails_then_completes(fault, "CreateAgentActionGroup", &rest).await;
    assert!(publish(&aws, &desired).await.unwrap().0.is_empty());
}

#[tokio::test]
async fn settings_a_persistent_agent_cannot_take_yet_are_refused_before_any_call() {
    let state = Shared::default();
    let aws = aws(&state);
    let mut desired = desired();
    desired.settings.bedrock.prompt_override_configuration =
        Some(PromptOverrideConfiguration { override_lambda: None, prompt_configurations: vec![] });
    let err = publish(&aws, &desired).await.unwrap_err();
    let AwsError::Invalid(violations) = err else { panic!("{err}") };
    assert_eq!(violations[0].path, "/inlineAgent/promptOverrideConfiguration");
    assert!(state.lock().unwrap().mutations.is_empty());
}

#[tokio::test]
async fn an_imported_agent_is_what_was_published_and_names_what_it_left_out() {
    let state = Shared::default();
    let aws = aws(&state);
    publish(&aws, &desired()).await.unwrap();

    let imported = aws.import_agent(AGENT_ID).await.unwrap();
    let agent = &imported.agent;
    assert_eq!(agent["agentId"], "weather-agent");
    assert_eq!(agent["basePrompt"], json!(desired().settings.instruction));
    assert_eq!(agent["foundationModel"], "anthropic.claude-3-haiku-20240307-v1:0");
    assert_eq!(agent["idleSessionTTLInSeconds"], 600);
    assert_eq!(agent["toolIds"], json!(["weather_basic@1.0.0"]));
    assert_eq!(
        agent["knowledgeBases"],
        json!([{"id": "KB12345678", "description": "Climate notes"}])
    );

    assert_eq!(imported.tools.len(), 1);
    let tool = &imported.tools[0];
    assert_eq!(tool["toolId"], "weather_basic@1.0.0");
    assert_eq!(tool["lambdaArn"], "arn:aws:lambda:us-east-1:123456789012:function:weather-basic");
    assert_eq!(tool["functionSchema"], schema("current")["functions"]);

    assert_eq!(imported.unrepresented.len(), 1, "{:?}", imported.unrepresented);
    assert_eq!(imported.unrepresented[0].path, "/actionGroups/browser");
    assert!(imported.unrepresented[0].reason.contains("return-of-control"));

    // An id Bedrock does not have is a precise refusal.
    state.lock().unwrap().agents.clear();
    let err = aws.import_agent("NOSUCHAGNT").await.unwrap_err();
    let AwsError::Invalid(violations) = err else { panic!("{err}") };
    assert_eq!(violations[0].path, "/agentId");
}

#[test]
fn bedrock_names_become_registry_ids() {
    assert_eq!(registry_aws::registry_id("Weather Agent (EU)"), "weather-agent-eu");
    assert_eq!(registry_aws::registry_id("team.x"), "team-x");
    assert_eq!(registry_aws::registry_id("--a__b--"), "a-b");
}

#[tokio::test]
async fn a_preparation_that_never_ends_is_waited_for_boundedly_and_completed_later() {
    let fault = |st: &mut State, on| st.stall_prepare = on;
    let failure = "after 3 reads; publish again";
    fails_then_completes(fault, failure, &["PrepareAgent", "PublishAlias"]).await;
}
