#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `POST /agents/{id}/resolve` and `POST /access/evaluate` over real HTTP on a real
//! store: the acceptance points of access rules, rollout, lifecycle and resolution.

mod common;

use std::sync::atomic::Ordering;

use common::spy::Spy;
use common::{Server, agent_json, start, tool_json};
use registry_api::Registry;
use registry_core::{Definition, RequestContext};
use registry_store::{Expected, Store};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn internal() -> Value {
    json!({"user": {"userId": "u-1", "userType": "internal-user"}, "account": {"accountId": "acct-1"}})
}

fn external() -> Value {
    json!({"user": {"userId": "u-2", "userType": "external-user"}, "account": {"accountId": "acct-2"}})
}

async fn resolve(s: &Server, agent: &str, context: &Value) -> common::Reply {
    s.send(
        s.req(Method::POST, &format!("/agents/{agent}/resolve?explain=true"), &s.reader)
            .json(context),
    )
    .await
}

fn tool_named(id: &str, name: &str, extra: Value) -> Value {
    let mut t = tool_json(id);
    t["name"] = json!(name);
    if let (Some(t), Value::Object(e)) = (t.as_object_mut(), extra) {
        t.extend(e);
    }
    t
}

fn group_names(reply: &common::Reply) -> Vec<String> {
    reply.body["inlineAgent"]["actionGroups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["actionGroupName"].as_str().unwrap().to_owned())
        .collect()
}

fn trace_tool<'a>(reply: &'a common::Reply, tool_id: &str) -> &'a Value {
    reply.body["trace"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["toolId"] == tool_id)
        .unwrap_or_else(|| panic!("{tool_id} not in the trace: {}", reply.text))
}

#[tokio::test]
async fn internal_users_resolve_and_external_users_get_a_403_with_the_decision() {
    let s = start().await;
    s.create_tool(&tool_json("weather-basic")).await;
    let mut agent = agent_json("weather-agent", &["weather-basic"]);
    agent["accessRules"] =
        json!([{"effect": "allow", "condition": "user.userType == 'internal-user'"}]);
    s.create_agent(&agent).await;

    let ok = resolve(&s, "weather-agent", &internal()).await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text);
    assert_eq!(ok.body["agentId"], "weather-agent");
    assert_eq!(ok.body["version"], 1);
    let inline = &ok.body["inlineAgent"];
    assert_eq!(
        inline["instruction"],
        "You help people with the weather: answer briefly and name the city."
    );
    assert_eq!(inline["foundationModel"], "anthropic.claude-3-haiku-20240307-v1:0");
    let group = &inline["actionGroups"][0];
    assert_eq!(group["actionGroupName"], "weather");
    assert_eq!(
        group["actionGroupExecutor"]["lambda"],
        "arn:aws:lambda:us-east-1:123456789012:function:weather"
    );
    assert_eq!(group["functionSchema"]["functions"][0]["name"], "get_weather");
    assert_eq!(ok.body["trace"]["access"]["reason"], "RULE_MATCH");
    assert_eq!(ok.body["trace"]["access"]["ruleIndex"], 0);
    assert_eq!(ok.body["warnings"], json!([]));

    let denied = resolve(&s, "weather-agent", &external()).await;
    denied.assert_problem(403, "ACCESS_DENIED");
    assert_eq!(denied.body["reason"], "NO_MATCH");
    assert_eq!(denied.body["decision"]["effect"], "deny");
    assert_eq!(denied.body["trace"]["outcome"], "DENIED");
    assert!(denied.body["inlineAgent"].is_null());
    // The problem fields first, in the problem's order, then why.
    assert!(
        denied.text.starts_with(
            "{\"type\":\"urn:agent-registry:problem:access-denied\",\"title\":\"Forbidden\",\
             \"status\":403,\"detail\":"
        ),
        "{}",
        denied.text
    );
    let keys: Vec<&String> = denied.body.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["type", "title", "status", "detail", "code", "errors", "reason", "decision", "trace"]
    );
    assert_eq!(denied.body["errors"], json!([]));
}

#[tokio::test]
async fn a_tool_rule_that_denies_the_caller_leaves_the_tool_out_and_names_it() {
    let s = start().await;
    s.create_tool(&tool_json("weather-basic")).await;
    let premium = json!([{"effect": "deny", "condition": "customData.tier != 'premium'"}, {"effect": "allow"}]);
    s.create_tool(&tool_named(
        "weather-premium",
        "premium_weather",
        json!({"accessRules": premium}),
    ))
    .await;
    s.create_agent(&agent_json("weather-agent", &["weather-basic", "weather-premium"])).await;

    let free = resolve(&s, "weather-agent", &json!({"customData": {"tier": "free"}})).await;
    assert_eq!(free.status, StatusCode::OK, "{}", free.text);
    assert_eq!(group_names(&free), ["weather"]);
    let t = trace_tool(&free, "weather-premium");
    assert_eq!(t["outcome"], "DENIED");
    assert_eq!(t["access"]["reason"], "RULE_MATCH");
    assert_eq!(t["access"]["ruleIndex"], 0);
    assert_eq!(trace_tool(&free, "weather-basic")["outcome"], "INCLUDED");

    let premium = resolve(&s, "weather-agent", &json!({"customData": {"tier": "premium"}})).await;
    assert_eq!(group_names(&premium), ["weather", "premium_weather"]);
}

#[tokio::test]
async fn sql_style_conditions_are_rejected_on_write_with_the_cel_rewrite() {
    let s = start().await;
    let sql = "user.userType = 'internal-user' AND customData.tier = 'premium'";
    let mut agent = agent_json("a", &[]);
    agent["accessRules"] = json!([{"effect": "allow", "condition": sql}]);
    let reply = s.send(s.req(Method::POST, "/agents", &s.editor).json(&agent)).await;
    reply.assert_invalid_at("/accessRules/0/condition");
    let message = reply.body["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("user.userType == 'internal-user' && customData.tier == 'premium'"),
        "{message}"
    );

    // the dry run reports the same, at /rules/<i>/condition
    let body = json!({"rules": [{"effect": "allow"}, {"effect": "allow", "condition": sql}], "context": {}});
    let reply = s.send(s.req(Method::POST, "/access/evaluate", &s.reader).json(&body)).await;
    reply.assert_invalid_at("/rules/1/condition");
    assert!(reply.text.contains("&&"), "{}", reply.text);
}

#[tokio::test]
async fn a_disabled_tool_disappears_from_the_very_next_resolution() {
    let s = start().await;
    s.create_tool(&tool_json("weather-basic")).await;
    s.create_tool(&tool_named("forecast", "forecast", json!({}))).await;
    s.create_agent(&agent_json("weather-agent", &["weather-basic", "forecast"])).await;
    assert_eq!(
        group_names(&resolve(&s, "weather-agent", &internal()).await),
        ["weather", "forecast"]
    );

    let patch = |status: &str, version: &str| {
        s.req(Method::PATCH, "/tools/forecast", &s.editor)
            .header("if-match", format!("\"{version}\""))
            .json(&json!({"lifecycle": {"status": status}}))
    };
    let disabled = s.send(patch("disabled", "1")).await;
    assert_eq!(disabled.status, StatusCode::OK, "{}", disabled.text);
    let next = resolve(&s, "weather-agent", &internal()).await;
    assert_eq!(group_names(&next), ["weather"]);
    assert_eq!(trace_tool(&next, "forecast")["outcome"], "DISABLED");
    assert_eq!(trace_tool(&next, "forecast")["version"], 2);

    // re-enabled: back at once
    let enabled = s.send(patch("active", "2")).await;
    assert_eq!(enabled.status, StatusCode::OK, "{}", enabled.text);
    assert_eq!(
        group_names(&resolve(&s, "weather-agent", &internal()).await),
        ["weather", "forecast"]
    );
}

#[tokio::test]
async fn a_retired_tool_cannot_be_added_to_an_agent() {
    let s = start().await;
    s.create_tool(&tool_json("weather-basic")).await;
    s.create_tool(&tool_named("old-tool", "old", json!({}))).await;
    let retired = s
        .patch("/tools/old-tool", &s.admin, "\"1\"", &json!({"lifecycle": {"status": "retired"}}))
        .await;
    assert_eq!(retired.status, StatusCode::OK, "{}", retired.text);
    let agent = agent_json("a", &["weather-basic", "old-tool"]);
    let reply = s.send(s.req(Method::POST, "/agents", &s.editor).json(&agent)).await;
    reply.assert_invalid_at("/toolIds/1");
}

#[tokio::test]
async fn unavailable_agents_are_distinct_403s_and_missing_ones_404s() {
    let s = start().await;
    let mut disabled = agent_json("off", &[]);
    disabled["lifecycle"] = json!({"status": "disabled"});
    s.create_agent(&disabled).await;
    let mut regional = agent_json("eu-only", &[]);
    regional["rolloutPolicy"] = json!({"regionRestrictions": ["eu-west-1"]});
    s.create_agent(&regional).await;
    let mut deprecated = agent_json("old", &[]);
    deprecated["lifecycle"] = json!({"status": "deprecated", "deprecationDate": "2027-03-01", "migrationPath": "use new"});
    s.create_agent(&deprecated).await;

    let reply = resolve(&s, "off", &internal()).await;
    reply.assert_problem(403, "NOT_AVAILABLE");
    assert_eq!(reply.body["reason"], "DISABLED");

    let reply = resolve(&s, "eu-only", &json!({"request": {"region": "us-east-1"}})).await;
    reply.assert_problem(403, "NOT_AVAILABLE");
    assert_eq!(reply.body["reason"], "REGION_NOT_ALLOWED");
    assert_eq!(reply.body["rollout"]["available"], false);
    let ok = resolve(&s, "eu-only", &json!({"request": {"region": "eu-west-1"}})).await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text);

    let ok = resolve(&s, "old", &internal()).await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text);
    assert_eq!(ok.body["warnings"][0]["code"], "DEPRECATED");
    assert_eq!(ok.body["warnings"][0]["deprecationDate"], "2027-03-01");
    assert_eq!(ok.body["warnings"][0]["migrationPath"], "use new");

    resolve(&s, "ghost", &internal()).await.assert_problem(404, "NOT_FOUND");
}

#[tokio::test]
async fn bad_bodies_are_400s_at_their_paths_and_a_token_is_needed() {
    let s = start().await;
    s.create_agent(&agent_json("a", &[])).await;
    let reply = resolve(&s, "a", &json!({"user": {"userType": "x", "nickname": "y"}})).await;
    reply.assert_invalid_at("/user/nickname");
    let reply = resolve(&s, "a", &json!({"usr": {}})).await;
    reply.assert_invalid_at("/usr");
    let reply = resolve(&s, "a", &json!({"user": {"roles": "admin"}})).await;
    reply.assert_invalid_at("/user/roles");
    let roles: Vec<String> = (0..1000).map(|i| format!("r{i}")).collect();
    let reply = resolve(&s, "a", &json!({"user": {"roles": roles}})).await;
    reply.assert_invalid_at("/user/roles");
    let reply = s.send(s.req(Method::POST, "/agents/a/resolve", "").json(&internal())).await;
    reply.assert_problem(401, "UNAUTHENTICATED");
    let reply = s.send(s.req(Method::POST, "/agents/a/resolve", &s.reader).body("{")).await;
    assert_eq!(reply.status.as_u16(), 415, "{}", reply.text);
}

#[tokio::test]
async fn collaborators_resolve_over_http_and_a_cycle_terminates() {
    let s = start().await;
    s.create_tool(&tool_json("weather-basic")).await;
    s.create_agent(&agent_json("a", &["weather-basic"])).await;
    let mut b = agent_json("b", &["weather-basic"]);
    b["collaborators"] =
        json!([{"agentId": "a", "instruction": "Ask a.", "historyRelay": "TO_AGENT"}]);
    s.create_agent(&b).await;
    let patched = s.patch("/agents/a", &s.editor, "\"1\"", &json!({
            "collaborators": [{"agentId": "b", "instruction": "Ask b.", "historyRelay": "TO_COLLABORATOR"}],
            "agentCollaboration": "SUPERVISOR"
        }))
        .await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text);

    let reply = resolve(&s, "a", &internal()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    let inline = &reply.body["inlineAgent"];
    assert_eq!(inline["collaborators"][0]["agentName"], "b");
    assert_eq!(reply.body["trace"]["collaborators"][0]["agentId"], "b");
    assert_eq!(inline["collaborators"][0]["actionGroups"][0]["actionGroupName"], "weather");
    assert_eq!(
        inline["collaboratorConfigurations"][0],
        json!({"collaboratorName": "b", "collaboratorInstruction": "Ask b.", "relayConversationHistory": "TO_COLLABORATOR"})
    );
    let back = &reply.body["trace"]["collaborators"][0]["collaborators"][0];
    assert_eq!(back["agentId"], "a");
    assert_eq!(back["outcome"], "CYCLE");
}

#[tokio::test]
async fn evaluate_dry_runs_rules_without_storing_anything() {
    let s = start().await;
    let rules = json!([
        {"effect": "allow", "condition": "user.userType == 'internal-user'", "order": 2},
        {"effect": "deny", "condition": "customData.tier == 'blocked'", "order": 1}
    ]);
    let evaluate = |context: Value| {
        s.send(
            s.req(Method::POST, "/access/evaluate", &s.reader)
                .json(&json!({"rules": rules, "context": context})),
        )
    };
    let mut free = internal();
    free["customData"] = json!({"tier": "free"});
    let reply = evaluate(free).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert_eq!(reply.body["decision"]["effect"], "allow");
    assert_eq!(reply.body["decision"]["reason"], "RULE_MATCH");
    assert_eq!(reply.body["decision"]["ruleIndex"], 0);
    assert_eq!(reply.body["decision"]["ruleOrder"], 2);
    assert_eq!(reply.body["rules"][0]["ruleIndex"], 1);
    assert_eq!(reply.body["rules"][0]["result"], "notMatched");
    assert_eq!(reply.body["rules"][1]["decisive"], true);
    // without customData.tier the deny rule errors, and an erroring deny denies
    let reply = evaluate(internal()).await;
    assert_eq!(reply.body["decision"]["effect"], "deny", "{}", reply.text);
    assert_eq!(reply.body["decision"]["reason"], "ERROR");
    assert_eq!(reply.body["decision"]["errors"][0]["ruleIndex"], 1);
    let body = json!({"rules": rules, "context": internal()});

    let bad =
        json!({"rules": [{"effect": "allow", "conditon": "true"}], "context": {}, "extra": 1});
    let reply = s.send(s.req(Method::POST, "/access/evaluate", &s.reader).json(&bad)).await;
    reply.assert_invalid_at("/extra");
    let bad = json!({"rules": [{"effect": "allow", "conditon": "true"}]});
    let reply = s.send(s.req(Method::POST, "/access/evaluate", &s.reader).json(&bad)).await;
    reply.assert_invalid_at("/rules/0/conditon");
    let roles: Vec<String> = (0..1000).map(|i| format!("r{i}")).collect();
    let bad = json!({"rules": [], "context": {"user": {"roles": roles}}});
    let reply = s.send(s.req(Method::POST, "/access/evaluate", &s.reader).json(&bad)).await;
    reply.assert_invalid_at("/context/user/roles");
    let reply = s.send(s.req(Method::POST, "/access/evaluate", "").json(&body)).await;
    reply.assert_problem(401, "UNAUTHENTICATED");
}

#[tokio::test]
async fn an_agent_and_its_tools_take_two_store_calls_plus_two_per_collaborator_level() {
    let dir = tempfile::tempdir().unwrap();
    let store = Spy::open(dir.path(), false);
    let registry = Registry::new(store.clone());
    let put = |d: Value, agent: bool| {
        let definition = if agent {
            Definition::Agent(serde_json::from_value(d).unwrap())
        } else {
            Definition::Tool(serde_json::from_value(d).unwrap())
        };
        store.inner.put(definition, Expected::Absent)
    };
    for i in 0..5 {
        put(tool_named(&format!("t{i}"), &format!("t{i}"), json!({})), false).await.unwrap();
    }
    put(agent_json("helper", &["t3", "t4"]), true).await.unwrap();
    let mut main = agent_json("main", &["t0", "t1", "t2"]);
    main["rolloutPolicy"] = json!({"toolOverrides": {"t2": "t3"}});
    put(main.clone(), true).await.unwrap();
    let ctx: RequestContext = serde_json::from_value(internal()).unwrap();

    let r = registry.resolver.resolve("main", &ctx, None).await.unwrap();
    assert_eq!(r.inline_agent.agent.action_groups.len(), 3);
    assert_eq!(store.calls.swap(0, Ordering::SeqCst), 2);

    main["collaborators"] =
        json!([{"agentId": "helper", "instruction": "Ask.", "historyRelay": "TO_AGENT"}]);
    store
        .inner
        .put(Definition::Agent(serde_json::from_value(main).unwrap()), Expected::Version(1))
        .await
        .unwrap();
    let r = registry.resolver.resolve("main", &ctx, None).await.unwrap();
    assert_eq!(r.inline_agent.collaborators[0].action_groups.len(), 2);
    assert_eq!(store.calls.swap(0, Ordering::SeqCst), 4);
}

#[test]
fn both_routes_are_documented_with_their_schemas() {
    let doc = serde_json::to_value(registry_api::openapi::document()).unwrap();
    let resolve = &doc["paths"]["/agents/{id}/resolve"]["post"];
    assert_eq!(
        resolve["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/RequestContext"
    );
    assert!(resolve["responses"]["403"]["content"]["application/problem+json"].is_object());
    let evaluate = &doc["paths"]["/access/evaluate"]["post"];
    assert!(evaluate["responses"]["200"].is_object() && evaluate["responses"]["400"].is_object());
    for schema in [
        "ResolveResponse",
        "LeftOut",
        "InlineSessionState",
        "Authorization",
        "AuthorizeRequest",
        "InlineAgent",
        "BedrockAgent",
        "ActionGroup",
        "AgentTrace",
        "RefusalProblem",
        "EvaluateRequest",
        "Evaluation",
        "Decision",
    ] {
        assert!(doc["components"]["schemas"][schema].is_object(), "schema {schema} missing");
    }
    // The agent's own members beside its flattened Bedrock settings.
    let agent = &doc["components"]["schemas"]["BedrockAgent"]["allOf"];
    assert_eq!(agent[0]["$ref"], "#/components/schemas/BedrockSettings", "{agent}");
    let groups = &agent[1]["properties"]["actionGroups"];
    assert_eq!(groups["items"]["$ref"], "#/components/schemas/ActionGroup", "{groups}");
}
