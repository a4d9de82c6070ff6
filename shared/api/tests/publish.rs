#![cfg(feature = "aws")]
#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Publishing over HTTP: plan and dry run, first publish, idempotent republish, the
//! record on the agent, the drift check, delete refused while published, unpublish.
//! Bedrock Agents is served in process (moto lacks most of its calls; see
//! shared/aws/tests/support/fake_bedrock.rs); the router, store and SDK client are real.

mod common;
#[path = "../../aws/tests/support/fake_bedrock.rs"]
mod fake_bedrock;

use common::{Server, agent_json, start_with_registry, tool_json};
use fake_bedrock::{AGENT_ID, Shared};
use registry_api::http::ServerLimits;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const ROLE: &str = "arn:aws:iam::123456789012:role/agent";

fn audience() -> Value {
    json!({"user": {"userId": "u-1", "userType": "internal-user"}, "account": {"accountId": "acct-1"}})
}

async fn start(state: &Shared) -> Server {
    let client = fake_bedrock::client(state);
    start_with_registry(ServerLimits::default(), move |registry| {
        registry
            .with_aws(registry_aws::Aws::with_bedrock(registry_aws::Endpoints::default(), client))
    })
    .await
}

/// A server as [`start`] gives, with the tool `weather-basic` and the agent `agent_id`
/// using it.
async fn start_with_agent(state: &Shared, agent_id: &str) -> Server {
    let s = start(state).await;
    s.create_tool(&tool_json("weather-basic")).await;
    s.create_agent(&agent_json(agent_id, &["weather-basic"])).await;
    s
}

fn calls(reply: &Value) -> Vec<String> {
    reply["plan"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["call"].as_str().unwrap().to_owned())
        .collect()
}

fn mutations(state: &Shared) -> usize {
    state.lock().unwrap().mutations.len()
}

#[tokio::test]
async fn publish_plans_applies_records_and_unpublishes() {
    let state = Shared::default();
    let s = start_with_agent(&state, "weather-agent").await;

    // A first publish needs its audience; readers may not publish.
    let r = s.admin_json(Method::POST, "/agents/weather-agent/publish", &json!({})).await;
    r.assert_invalid_at("/context");
    let r = s
        .send(
            s.req(Method::POST, "/agents/weather-agent/publish", &s.reader)
                .json(&json!({"context": audience()})),
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);

    // Dry run: the plan, nothing made.
    let body = json!({"context": audience(), "roleArn": ROLE, "dryRun": true});
    let r = s.admin_json(Method::POST, "/agents/weather-agent/publish", &body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        calls(&r.body),
        ["CreateAgent", "CreateAgentActionGroup", "PrepareAgent", "PublishAlias"]
    );
    assert_eq!(r.body["dryRun"], true);
    assert_eq!(mutations(&state), 0, "a dry run makes no mutating call");

    // Publish: made and recorded on the agent.
    let body = json!({"context": audience(), "roleArn": ROLE});
    let r = s.admin_json(Method::POST, "/agents/weather-agent/publish", &body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(calls(&r.body).len(), 4);
    let publication = r.body["publication"].clone();
    assert_eq!(publication["bedrockAgentId"], AGENT_ID);
    assert_eq!(publication["registryVersion"], 1);
    assert_eq!(publication["agentVersion"], "1");
    assert_eq!(publication["publishedBy"], "admin");
    let got = s.get("/agents/weather-agent").await;
    assert_eq!(got.body["publication"], publication, "GET shows the publication");
    assert_eq!(got.body["version"], 2, "recording it is a change");
    {
        let st = state.lock().unwrap();
        let group = st.only().groups.values().next().unwrap();
        assert!(format!("{:?}", group.action_group_executor).contains("weather"), "{group:?}");
    }

    // Again, with the audience on record: no mutating call, no new version.
    let before = mutations(&state);
    let r = s.admin_json(Method::POST, "/agents/weather-agent/publish", &json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert!(calls(&r.body).is_empty(), "{}", r.text);
    assert_eq!(mutations(&state), before);
    assert_eq!(s.get("/agents/weather-agent").await.body["version"], 2);

    // Drift: in sync, then not once the agent changes.
    let drift = s.get("/agents/weather-agent/publication").await;
    assert_eq!(drift.status, StatusCode::OK, "{}", drift.text);
    assert_eq!(drift.body["inSync"], true);
    let patched = s
        .send(
            s.req(Method::PATCH, "/agents/weather-agent", &s.admin)
                .header("if-match", "\"2\"")
                .header("content-type", "application/merge-patch+json")
                .body(json!({"basePrompt": "You help people with the weather: one sentence, always with the city."}).to_string()),
        )
        .await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text);
    assert_eq!(patched.body["publication"], publication, "an edit keeps the record");
    let drift = s.get("/agents/weather-agent/publication").await;
    assert_eq!(drift.body["inSync"], false);
    assert_eq!(calls(&drift.body), ["UpdateAgent", "PrepareAgent", "PublishAlias"]);

    // Deleting a published agent would orphan the Bedrock agent: refused.
    let r = s
        .send(s.req(Method::DELETE, "/agents/weather-agent", &s.admin).header("if-match", "\"3\""))
        .await;
    r.assert_problem(409, "PUBLISHED");
    assert!(r.body["detail"].as_str().unwrap().contains(AGENT_ID), "{}", r.text);
    assert_eq!(
        r.body["detail"],
        format!(
            "agent `weather-agent` is published to Bedrock as agent {AGENT_ID} (alias {}); \
             unpublish it first: DELETE /agents/weather-agent/publication",
            publication["aliasArn"].as_str().unwrap()
        ),
        "the exact text, no stray whitespace"
    );

    // Unpublish removes it from Bedrock and clears the record; then delete works.
    let r = s.send(s.req(Method::DELETE, "/agents/weather-agent/publication", &s.admin)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert!(state.lock().unwrap().agents.is_empty());
    let got = s.get("/agents/weather-agent").await;
    assert!(got.body.get("publication").is_none(), "{}", got.text);
    let r = s.get("/agents/weather-agent/publication").await;
    r.assert_invalid_at("");
    let version = got.body["version"].as_u64().unwrap();
    let r = s
        .send(
            s.req(Method::DELETE, "/agents/weather-agent", &s.admin)
                .header("if-match", format!("\"{version}\"")),
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);

    // Each step is an event of the agent: publish, the edit, unpublish, delete.
    let events = s.get("/events?kind=agent&id=weather-agent&limit=1000").await;
    let actions: Vec<&str> = events.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["actor"] == "admin")
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["publish", "patch", "unpublish", "delete"], "{}", events.text);
    let publish =
        &events.body["items"].as_array().unwrap().iter().find(|e| e["action"] == "publish");
    assert_eq!(publish.map(|e| e["changed"].clone()), Some(serde_json::json!(["/publication"])));
}

#[tokio::test]
async fn import_reads_a_bedrock_agent_into_definitions_and_applies_them() {
    let state = Shared::default();
    let s = start_with_agent(&state, "weather-agent").await;
    let body = json!({"context": audience(), "roleArn": ROLE});
    let r = s.admin_json(Method::POST, "/agents/weather-agent/publish", &body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);

    // Readers may not use the server's AWS credentials to browse Bedrock.
    let request = json!({"agentId": AGENT_ID});
    let r = s.send(s.req(Method::POST, "/import/bedrock", &s.reader).json(&request)).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);

    // Read only: the definitions, nothing left out, nothing refused, nothing written.
    let r = s.send(s.req(Method::POST, "/import/bedrock", &s.editor).json(&request)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["applied"], false);
    assert_eq!(r.body["problems"], json!([]), "{}", r.text);
    assert_eq!(r.body["unrepresented"], json!([]), "{}", r.text);
    assert_eq!(r.body["agent"]["agentId"], "weather-agent");
    let tool_id = r.body["tools"][0]["toolId"].as_str().unwrap().to_owned();
    assert_eq!(r.body["agent"]["toolIds"], json!([tool_id]));
    assert_eq!(s.get(&format!("/tools/{tool_id}")).await.status, StatusCode::NOT_FOUND);

    // Applied: the tools and the agent are stored.
    let apply = json!({"agentId": AGENT_ID, "apply": true});
    let r = s.send(s.req(Method::POST, "/import/bedrock", &s.editor).json(&apply)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["applied"], true);
    let tool = s.get(&format!("/tools/{tool_id}")).await;
    assert_eq!(tool.status, StatusCode::OK, "{}", tool.text);
    assert_eq!(tool.body["lambdaArn"], tool_json("x")["lambdaArn"]);
    let agent = s.get("/agents/weather-agent").await;
    assert_eq!(agent.body["toolIds"], json!([tool_id]));

    // An agent Bedrock does not have is a 400 at the id.
    state.lock().unwrap().agents.clear();
    let r = s
        .send(
            s.req(Method::POST, "/import/bedrock", &s.editor)
                .json(&json!({"agentId": "NOSUCHAGNT"})),
        )
        .await;
    r.assert_invalid_at("/agentId");
}

#[tokio::test]
async fn collaborators_are_published_first_and_associated_by_their_alias() {
    let state = Shared::default();
    let s = start_with_agent(&state, "forecaster").await;
    let mut supervisor = agent_json("weather-desk", &[]);
    supervisor["agentCollaboration"] = json!("SUPERVISOR");
    supervisor["collaborators"] = json!([{
        "agentId": "forecaster",
        "instruction": "Ask the forecaster about tomorrow's weather.",
        "historyRelay": "TO_COLLABORATOR",
    }]);
    let r = s.create_agent(&supervisor).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);

    // Dry run: the collaborator's plan first, the supervisor's with it; nothing made.
    let body = json!({"context": audience(), "roleArn": ROLE, "dryRun": true});
    let r = s.admin_json(Method::POST, "/agents/weather-desk/publish", &body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        calls(&r.body["collaborators"][0]),
        ["CreateAgent", "CreateAgentActionGroup", "PrepareAgent", "PublishAlias"]
    );
    assert!(calls(&r.body).contains(&"AssociateAgentCollaborator".to_owned()), "{}", r.text);
    assert_eq!(mutations(&state), 0);

    // Publish: the forecaster first, then the desk, associated through its alias.
    let body = json!({"context": audience(), "roleArn": ROLE});
    let r = s.admin_json(Method::POST, "/agents/weather-desk/publish", &body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let forecaster_alias =
        r.body["collaborators"][0]["publication"]["aliasArn"].as_str().unwrap().to_owned();
    assert_eq!(s.get("/agents/forecaster").await.body["publication"]["aliasArn"], forecaster_alias);
    let desk_id = r.body["publication"]["bedrockAgentId"].as_str().unwrap().to_owned();
    {
        let st = state.lock().unwrap();
        assert_eq!(st.agents.len(), 2);
        let associated: Vec<_> = st.agents[&desk_id].collaborators.values().collect();
        assert_eq!(associated.len(), 1);
        assert_eq!(
            associated[0].agent_descriptor.as_ref().unwrap().alias_arn.as_deref(),
            Some(forecaster_alias.as_str())
        );
    }

    // Again: both published, nothing to do.
    let before = mutations(&state);
    let r = s.admin_json(Method::POST, "/agents/weather-desk/publish", &json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert!(calls(&r.body).is_empty() && r.body["collaborators"] == json!([]), "{}", r.text);
    assert_eq!(mutations(&state), before);
}
