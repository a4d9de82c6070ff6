#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The publish planner: applying a plan then planning again gives an empty plan, and a
//! publication whose Bedrock state already matches makes no call at all.

use std::collections::BTreeMap;

use proptest::prelude::*;
use registry_aws::plan::{
    ActionGroupSpec, AgentSettings, Call, CollaboratorSpec, Desired, Existing, KnowledgeBaseSpec,
    apply, plan,
};
use registry_core::{
    AgentCollaboration, BedrockSettings, OrchestrationSettings, OrchestrationType,
};
use serde_json::json;

fn group(name: &str, variant: u8) -> ActionGroupSpec {
    ActionGroupSpec {
        name: name.into(),
        description: format!("group {name} v{variant}"),
        executor: json!({"lambda": format!("arn:aws:lambda:us-east-1:123456789012:function:{name}")}),
        function_schema: json!({"functions": [{"name": "f", "description": format!("v{variant}")}]}),
    }
}

fn desired() -> impl Strategy<Value = Desired> {
    (
        prop::collection::btree_map("[a-z]{1,3}", 0u8..3, 0..4),
        prop::collection::btree_map("KB[0-9]{8}", "[a-z]{1,5}", 0..3),
        prop::collection::btree_map("[a-z]{1,3}", "[A-Z]{10}", 0..3),
        prop::option::of(60u32..120),
        "[a-z ]{40,50}",
    )
        .prop_map(|(groups, kbs, collaborators, ttl, instruction)| {
            let settings = AgentSettings {
                instruction: Some(instruction),
                foundation_model: Some("anthropic.claude-3-haiku-20240307-v1:0".into()),
                bedrock: BedrockSettings { idle_session_ttl_in_seconds: ttl, ..Default::default() },
                ..AgentSettings::default()
            };
            Desired {
                agent_name: "weather-agent".into(),
                settings,
                action_groups: groups.iter().map(|(n, v)| (n.clone(), group(n, *v))).collect(),
                knowledge_bases: kbs
                    .into_iter()
                    .map(|(id, d)| (id.clone(), KnowledgeBaseSpec { id, description: d }))
                    .collect(),
                collaborators: collaborators
                    .into_iter()
                    .map(|(name, alias)| {
                        let spec = CollaboratorSpec {
                            name: name.clone(),
                            alias_arn: format!("arn:aws:bedrock:us-east-1:123456789012:agent-alias/{alias}/ALIAS00001"),
                            instruction: "Ask it.".into(),
                            relay: "DISABLED".into(),
                        };
                        (name, spec)
                    })
                    .collect(),
            }
        })
}

/// Whatever Bedrock may hold: nothing, or an earlier publication of another desired state.
fn existing() -> impl Strategy<Value = Existing> {
    prop_oneof![
        Just(Existing::default()),
        (desired(), any::<bool>(), any::<bool>()).prop_map(|(d, prepared, alias)| {
            let mut e = apply(&Existing::default(), &plan(&d, &Existing::default()));
            e.prepared = prepared;
            if !alias {
                e.alias = None;
            }
            e
        }),
    ]
}

proptest! {
    #[test]
    fn a_plan_applied_leaves_nothing_to_do(d in desired(), e in existing()) {
        let calls = plan(&d, &e);
        let after = apply(&e, &calls);
        prop_assert_eq!(plan(&d, &after), Vec::<Call>::new());
        // Every change is followed by a prepare and the alias move.
        if !calls.is_empty() {
            prop_assert_eq!(&calls[calls.len() - 2..], &[Call::PrepareAgent, Call::PublishAlias]);
        }
    }
}

#[test]
fn publishing_twice_makes_calls_only_the_first_time() {
    let d = Desired {
        agent_name: "weather-agent".into(),
        settings: AgentSettings { instruction: Some("x".repeat(40)), ..AgentSettings::default() },
        action_groups: BTreeMap::from([("weather".into(), group("weather", 0))]),
        ..Desired::default()
    };
    let first = plan(&d, &Existing::default());
    let names: Vec<&str> = first
        .iter()
        .map(|c| match c {
            Call::CreateAgent { .. } => "CreateAgent",
            Call::CreateAgentActionGroup(_) => "CreateAgentActionGroup",
            Call::PrepareAgent => "PrepareAgent",
            Call::PublishAlias => "PublishAlias",
            _ => "other",
        })
        .collect();
    assert_eq!(names, ["CreateAgent", "CreateAgentActionGroup", "PrepareAgent", "PublishAlias"]);
    let state = apply(&Existing::default(), &first);
    assert!(plan(&d, &state).is_empty());
    // A changed tool is one update, then prepare and alias; a removed one a delete.
    let mut changed = d.clone();
    changed.action_groups.insert("weather".into(), group("weather", 1));
    let calls = plan(&changed, &state);
    assert!(
        matches!(
            calls.as_slice(),
            [Call::UpdateAgentActionGroup { .. }, Call::PrepareAgent, Call::PublishAlias]
        ),
        "{calls:?}"
    );
    changed.action_groups.clear();
    let calls = plan(&changed, &state);
    assert!(
        matches!(&calls[0], Call::DeleteAgentActionGroup { name, .. } if name == "weather"),
        "{calls:?}"
    );
}

/// A plan shows the settings by AWS member name, in name order, and an update only the
/// members that change, a removed one as `null`.
#[test]
fn a_plan_shows_settings_by_name_and_removed_members_as_null() {
    let mut d = Desired {
        agent_name: "a".into(),
        settings: AgentSettings {
            instruction: Some("i".into()),
            description: Some("d".into()),
            agent_collaboration: Some(AgentCollaboration::Disabled),
            bedrock: BedrockSettings {
                idle_session_ttl_in_seconds: Some(600),
                customer_encryption_key_arn: Some("arn:k".into()),
                ..Default::default()
            },
            orchestration: OrchestrationSettings {
                orchestration_type: Some(OrchestrationType::Default),
                ..Default::default()
            },
            ..AgentSettings::default()
        },
        ..Desired::default()
    };
    let first = plan(&d, &Existing::default());
    assert_eq!(
        serde_json::to_string(&first[0]).unwrap(),
        concat!(
            r#"{"call":"CreateAgent","agentName":"a","settings":{"agentCollaboration":"DISABLED","#,
            r#""customerEncryptionKeyArn":"arn:k","description":"d","idleSessionTTLInSeconds":600,"#,
            r#""instruction":"i","orchestrationType":"DEFAULT"}}"#
        )
    );
    let state = apply(&Existing::default(), &first);
    d.settings.description = None;
    d.settings.bedrock.idle_session_ttl_in_seconds = Some(900);
    let update = plan(&d, &state);
    assert_eq!(
        serde_json::to_value(&update[0]).unwrap(),
        json!({"call": "UpdateAgent", "changes": {"description": null, "idleSessionTTLInSeconds": 900}})
    );
    assert!(plan(&d, &apply(&state, &update)).is_empty());
}
