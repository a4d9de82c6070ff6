//! The guarded example tool (`run_guarded(convert)`) under a local Lambda Runtime API,
//! its rules in a registry table on the local DynamoDB-API server (seeded with the
//! registry's own store code), fed Bedrock action-group events whose session attributes
//! carry the principal token of a real resolve by the admin-api binary (its key ring in a
//! Secrets Manager secret, the guard holding the public keys only), or, for the cases a
//! resolve cannot produce on demand (an expired token), one issued as resolution issues it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{READER, ROLE_MAP, api};
use registry_core::{AgentDefinition, Definition, ToolDefinition};
use registry_e2e::principal::{self, guard_env, now_s, ring};
use registry_e2e::{Lambda, Table};
use registry_store::{Expected, Store};
use registry_store_dynamodb::DynamoStore;
use registry_token::SESSION_ATTRIBUTE;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

const TOOL_ID: &str = "convert_units@1.0.0";
/// The Bedrock session of the events.
const SESSION: &str = "e2e-session";

/// A registry table holding the example tool and agent `support-bot` using it (the
/// tokens' agent: a token is granted only its agent's tools), written by the
/// registry's store.
async fn seeded_table() -> Table {
    let (table, store) = seeded().await;
    seed_agent(&store, Value::Null).await;
    table
}

/// [`seeded_table`] and the store on it.
async fn seeded() -> (Table, DynamoStore) {
    let store = registry_store_dynamodb::local::fresh_store("guard").await.unwrap();
    let tool: ToolDefinition =
        serde_json::from_str(include_str!("../../cli/example/convert-units.json")).unwrap();
    store.put(Definition::Tool(tool), Expected::Absent).await.unwrap();
    let endpoint = registry_store_dynamodb::local::endpoint().unwrap().to_owned();
    (Table { name: store.table().to_owned(), endpoint }, store)
}

/// The example tool with its guard configured for `table`, plus `env`.
async fn guarded_tool(table: &Table, env: &[(&str, &str)]) -> Lambda {
    let mut all = vec![("REGISTRY_TABLE", table.name.as_str()), ("REGISTRY_TOOL_ID", TOOL_ID)];
    all.extend_from_slice(&guard_env());
    all.extend_from_slice(env);
    Lambda::start("example-tool", table, &all).await
}

/// The session attribute resolution adds: the principal token issued with the
/// registry's key, valid until `expires_at`.
fn signed(context: Value, expires_at: i64) -> String {
    principal::issue(ring(), "support-bot", &context, SESSION, expires_at)
}

fn context() -> String {
    signed(json!({"user": {"userId": "u-42", "roles": ["agent"]}}), now_s() + 3_600)
}

/// A function-details event for `convert` as Bedrock sends it.
fn event(value: &str, principal: Option<&str>) -> Value {
    let mut attributes = json!({"tenant": "t-1"});
    if let Some(p) = principal {
        attributes[SESSION_ATTRIBUTE] = json!(p);
    }
    json!({
        "messageVersion": "1.0",
        "agent": {"name": "support", "id": "AGENT12345", "alias": "TSTALIASID", "version": "DRAFT"},
        "inputText": "how far is that in miles?", "sessionId": SESSION,
        "actionGroup": "convert_units", "function": "convert",
        "parameters": [
            {"name": "value", "type": "number", "value": value},
            {"name": "from", "type": "string", "value": "km"},
            {"name": "to", "type": "string", "value": "m"}
        ],
        "sessionAttributes": attributes, "promptSessionAttributes": {}
    })
}

/// `(responseState, body)` of a function-details response.
fn answer(response: &Value) -> (Option<String>, String) {
    let f = &response["response"]["functionResponse"];
    let state = f["responseState"].as_str().map(str::to_owned);
    (state, f["responseBody"]["TEXT"]["body"].as_str().unwrap_or_default().to_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_context_of_a_real_resolve_reaches_the_guarded_tool() {
    let (table, store) = seeded().await;
    let agent: AgentDefinition = serde_json::from_value(json!({
        "agentId": "travel-helper",
        "basePrompt": "You help travellers convert units.",
        "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
        "toolIds": [TOOL_ID]
    }))
    .unwrap();
    store.put(Definition::Agent(agent), Expected::Absent).await.unwrap();
    let secret =
        principal::signing_keys_secret(&table.endpoint, &format!("{}-keys", table.name)).await;
    let registry = Lambda::start(
        "admin-api",
        &table,
        &[
            ("REGISTRY_ROLE_MAP", ROLE_MAP),
            ("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true"),
            ("REGISTRY_SIGNING_KEYS_SECRET", secret.as_str()),
        ],
    )
    .await;
    let context = json!({"user": {"userId": "u-7", "userType": "internal-user"}});
    let path = format!("/agents/travel-helper/resolve?sessionId={SESSION}");
    let (status, resolved) = api(&registry, "POST", &path, Some(&context), READER).await;
    assert_eq!(resolved["sessionId"], SESSION, "{resolved}");
    assert_eq!(status, 200, "{resolved}");
    let principal = resolved
        .pointer("/inlineAgent/inlineSessionState/sessionAttributes/registryPrincipal")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no signed context in {resolved}"))
        .to_owned();

    let tool = guarded_tool(&table, &[]).await;
    let allowed = tool.call(&event("5", Some(&principal))).await;
    assert_eq!(
        answer(&allowed),
        (None, r#"{"value":5000.0,"unit":"m","dimension":"length"}"#.into())
    );
    let over = tool.call(&event("2000000000", Some(&principal))).await;
    assert_eq!(answer(&over).0.as_deref(), Some("REPROMPT"), "{over}");
    let (head, mac) = principal.rsplit_once('.').unwrap();
    let forged = format!("{}A.{mac}", &head[..head.len() - 1]);
    let forged =
        if forged == principal { format!("{}B.{mac}", &head[..head.len() - 1]) } else { forged };
    let refused = tool.call(&event("5", Some(&forged))).await;
    assert_eq!(answer(&refused).0.as_deref(), Some("FAILURE"), "{refused}");

    let lines = tool.guard_lines();
    assert_eq!(lines.len(), 3, "{}", tool.log());
    assert_eq!(
        (lines[0]["agentId"].as_str(), lines[0]["principalId"].as_str()),
        (Some("travel-helper"), Some("u-7"))
    );
    assert_eq!(lines[1]["ruleId"], "no-huge-values");
    assert_eq!(lines[2]["reason"], "INVALID_SIGNED_CONTEXT");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_guarded_tool_answers_allowed_calls_and_refuses_the_rest() {
    let table = seeded_table().await;
    let tool = guarded_tool(&table, &[]).await;
    let principal = context();

    let allowed = tool.call(&event("5", Some(&principal))).await;
    let (state, body) = answer(&allowed);
    assert_eq!(state, None, "{allowed}");
    assert_eq!(body, r#"{"value":5000.0,"unit":"m","dimension":"length"}"#);

    let over = tool.call(&event("2000000000", Some(&principal))).await;
    let (state, body) = answer(&over);
    assert_eq!(state.as_deref(), Some("REPROMPT"), "{over}");
    assert_eq!(
        body,
        "The call to `convert` is not permitted: Quantities beyond a billion are refused (rule `no-huge-values`)."
    );
    assert!(!body.contains("dimension"), "the handler did not answer: {body}");
    assert_eq!(over["response"]["actionGroup"], "convert_units");
    assert_eq!(over["sessionAttributes"]["tenant"], "t-1", "attributes carried over");

    let (head, mac) = principal.rsplit_once('.').unwrap();
    let tampered = format!("{}x.{mac}", &head[..head.len() - 1]);
    let expired = signed(json!({"user": {"userId": "u-42"}}), now_s() - 1);
    for (what, principal, says) in [
        ("tampered", Some(tampered.as_str()), "not valid"),
        ("expired", Some(expired.as_str()), "expired"),
        ("missing", None, "no registry principal context"),
    ] {
        let refused = tool.call(&event("5", principal)).await;
        let (state, body) = answer(&refused);
        assert_eq!(state.as_deref(), Some("FAILURE"), "{what}: {refused}");
        assert!(body.contains(says) && !body.contains("dimension"), "{what}: {body}");
    }

    let lines = tool.guard_lines();
    let seen: Vec<_> = lines
        .iter()
        .map(|l| (l["effect"].as_str().unwrap(), l["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        seen,
        [
            ("allow", "RULE_MATCH"),
            ("deny", "RULE_MATCH"),
            ("deny", "INVALID_SIGNED_CONTEXT"),
            ("deny", "EXPIRED_SIGNED_CONTEXT"),
            ("deny", "NO_SIGNED_CONTEXT"),
        ],
        "{}",
        tool.log()
    );
    assert_eq!(lines[1]["ruleId"], "no-huge-values");
    assert_eq!(lines[0]["agentId"], "support-bot");
    assert_eq!(lines[0]["principalId"], "u-42");
    assert_eq!(lines[0]["toolVersion"], 1);
    for line in &lines {
        assert_eq!(line["toolId"], TOOL_ID);
        assert_eq!(line["_aws"]["CloudWatchMetrics"][0]["Namespace"], "AgentRegistry/Decisions");
        // what the line says of the call; the timing and metric fields are numbers of ours
        let mut said = line.clone();
        let fields = said.as_object_mut().unwrap();
        fields.remove("evalMicros");
        fields.remove("_aws");
        let text = said.to_string();
        for value in ["2000000000", "\"km\"", "u-42\"]", "roles", "t-1"] {
            assert!(!text.contains(value), "an argument or context value in {text}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_table_on_a_cold_container_refuses_and_logs_why() {
    let table = seeded_table().await;
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let endpoint = format!("http://{closed}");
    let tool = guarded_tool(&table, &[("REGISTRY_DYNAMODB_ENDPOINT_URL", &endpoint)]).await;
    let refused = tool.call(&event("5", Some(&context()))).await;
    let (state, body) = answer(&refused);
    assert_eq!(state.as_deref(), Some("FAILURE"), "{refused}");
    assert_eq!(
        body,
        "The call to `convert` is not permitted: the tool's call policy cannot be read right now."
    );
    let lines = tool.guard_lines();
    assert_eq!(lines.len(), 1, "{}", tool.log());
    assert_eq!(lines[0]["reason"], "RULES_UNAVAILABLE");
    let message = lines[0]["message"].as_str().unwrap();
    assert!(message.contains("could not be read"), "{message}");
}

/// A TCP relay to the DynamoDB-API server that can be cut: the table becomes
/// unreachable (connections refused, open ones dropped) for a warm container.
struct Relay {
    addr: SocketAddr,
    accept: JoinHandle<()>,
    links: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl Relay {
    async fn to(endpoint: &str) -> Self {
        let target = endpoint.trim_start_matches("http://").to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let links: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let open = links.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let target = target.clone();
                open.lock().unwrap().push(tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(&target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                }));
            }
        });
        Self { addr, accept, links }
    }

    /// Stops listening and drops every open connection.
    fn cut(&self) {
        self.accept.abort();
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }
}

/// The one test with a real wait: the binary reads the system clock, so the staleness
/// bound (4 s here, through the environment) has to pass for real. The guard's own
/// tests (shared/action-group/tests/guard.rs) cover the same with a moved clock.
#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_table_on_a_warm_container_serves_cached_rules_until_the_bound() {
    const BOUND: Duration = Duration::from_secs(4);
    let table = seeded_table().await;
    let relay = Relay::to(&table.endpoint).await;
    let endpoint = format!("http://{}", relay.addr);
    let tool = guarded_tool(
        &table,
        &[
            ("REGISTRY_DYNAMODB_ENDPOINT_URL", &endpoint),
            ("REGISTRY_GUARD_MAX_STALENESS_SECONDS", "4"),
        ],
    )
    .await;
    let principal = context();

    let before_read = Instant::now();
    let first = tool.call(&event("5", Some(&principal))).await;
    assert_eq!(answer(&first).0, None, "{first}");
    relay.cut();

    let cached = tool.call(&event("5", Some(&principal))).await;
    let elapsed = before_read.elapsed();
    assert_eq!(
        answer(&cached).0,
        None,
        "cached rules serve within the bound ({elapsed:?}): {cached}"
    );
    let denied = tool.call(&event("2000000000", Some(&principal))).await;
    assert_eq!(answer(&denied).0.as_deref(), Some("REPROMPT"), "cached rules still decide");

    tokio::time::sleep((BOUND + Duration::from_millis(200)).saturating_sub(before_read.elapsed()))
        .await;
    let stale = tool.call(&event("5", Some(&principal))).await;
    let (state, body) = answer(&stale);
    assert_eq!(state.as_deref(), Some("FAILURE"), "{stale}");
    assert!(body.contains("cannot be read right now"), "{body}");
    let lines = tool.guard_lines();
    let last = lines.last().unwrap();
    assert_eq!(last["reason"], "RULES_STALE", "{}", tool.log());
    assert!(last["message"].as_str().unwrap().contains("the bound is 4000 ms"), "{last}");
}

/// `event` in the Bedrock session `session`.
fn in_session(value: &str, session: &str) -> Value {
    let context = json!({"user": {"userId": "u-42", "roles": ["agent"]}});
    let principal = principal::issue(ring(), "support-bot", &context, session, now_s() + 3_600);
    let mut e = event(value, Some(&principal));
    e["sessionId"] = json!(session);
    e
}

/// Stores agent `support-bot`, which uses the tool, with 3 tool calls per session.
async fn seed_budgeted_agent(store: &DynamoStore) {
    seed_agent(store, json!({"maxToolCalls": 3})).await;
}

/// Stores agent `support-bot`, which uses the tool, with `limits` (`null`: none).
async fn seed_agent(store: &DynamoStore, limits: Value) {
    let agent: AgentDefinition = serde_json::from_value(json!({
        "agentId": "support-bot",
        "basePrompt": "You help travellers convert units, a few times per conversation.",
        "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
        "toolIds": [TOOL_ID],
        "limits": limits
    }))
    .unwrap();
    store.put(Definition::Agent(agent), Expected::Absent).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_gets_the_agent_s_tool_calls_and_no_more() {
    let (table, store) = seeded().await;
    seed_budgeted_agent(&store).await;
    let tool = guarded_tool(&table, &[]).await;
    for n in 1..=3 {
        let (state, body) = answer(&tool.call(&in_session("5", "budget-1")).await);
        assert_eq!(state, None, "call {n}: {body}");
        assert!(body.contains("\"unit\""), "call {n} answered by the handler: {body}");
    }
    for n in 4..=5 {
        let (state, body) = answer(&tool.call(&in_session("5", "budget-1")).await);
        assert_eq!(state.as_deref(), Some("REPROMPT"), "call {n}: {body}");
        assert!(body.contains("budget is spent") && !body.contains("\"unit\""), "call {n}: {body}");
    }
    let (state, body) = answer(&tool.call(&in_session("5", "budget-2")).await);
    assert_eq!(state, None, "a new session starts from zero: {body}");
    let lines = tool.guard_lines();
    let limited: Vec<&Value> = lines.iter().filter(|l| l["limit"] == "maxToolCalls").collect();
    assert_eq!(limited.len(), 2, "{lines:?}");
    assert!(limited.iter().all(|l| l["sessionId"] == "budget-1"), "{limited:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_counted_call_with_a_session_id_bedrock_never_sends_is_refused_and_counts_nothing() {
    let (table, store) = seeded().await;
    seed_budgeted_agent(&store).await;
    let tool = guarded_tool(&table, &[]).await;
    let long = "s".repeat(200_000);
    // tokens bound to ids the registry never issues them for; and a token of another
    // session in an event with an id too long for any token
    let bad = ["", "x", "a\nb", "a\u{0}b", "a b"];
    for session in bad {
        let (state, body) = answer(&tool.call(&in_session("5", session)).await);
        assert_eq!(state.as_deref(), Some("FAILURE"), "{}: {body}", session.len());
        assert!(body.contains("session's id is not valid"), "{body}");
    }
    let mut replayed = in_session("5", "ok-session");
    replayed["sessionId"] = json!(long);
    let (state, body) = answer(&tool.call(&replayed).await);
    assert_eq!(state.as_deref(), Some("FAILURE"), "{body}");
    assert!(body.contains("belongs to another session"), "{body}");
    let lines = tool.guard_lines();
    assert_eq!(lines.len(), bad.len() + 1, "{}", tool.log());
    for (at, line) in lines.iter().enumerate() {
        let reason = if at < bad.len() { "INVALID_SESSION" } else { "SESSION_MISMATCH" };
        assert_eq!(line["reason"], reason, "{line}");
        assert!(line.get("sessionId").is_none(), "never logged: {line}");
    }
    let keys: Vec<String> = bad
        .iter()
        .chain([&long.as_str()])
        .map(|s| registry_store::session_key("support-bot", s))
        .collect();
    let read = store.get_counters(&keys, now_s()).await.unwrap();
    assert!(read.iter().all(Option::is_none), "nothing counted: {read:?}");
    let (state, body) = answer(&tool.call(&in_session("5", "ok-session")).await);
    assert_eq!(state, None, "a Bedrock session id is counted as before: {body}");
}
