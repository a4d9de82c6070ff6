//! The call-time guard on the convert_units example tool: allowed and denied calls,
//! every fail-closed path, the staleness bound with a moved clock, and the decision
//! lines. The rule source is an in-process stand-in for the registry's table (the same
//! definition the table would hold); the end-to-end run on the local DynamoDB-API
//! server and a Lambda Runtime API is tests/tests/guard.rs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bedrock_action_group::{ActionGroupResponse, ResponseState, ToolError, parse_event};
use registry_core::{AgentDefinition, Definition, ToolDefinition};
use registry_guard::{
    ConfigError, Guard, GuardConfig, RuleSource, TOOL_ID_ENV, Verdict, handle_guarded,
};
use registry_policy::Fetched;
use registry_store::StoreError;
use registry_token::{
    DEFAULT_AUDIENCE, KeyRing, KeySource, SESSION_ATTRIBUTE, TokenRequest, Verifier,
};
use serde::Deserialize;
use serde_json::{Value, json};

const TOOL_ID: &str = "convert_units@1.0.0";
/// The registry's issuer the guard expects.
const ISS: &str = "http://registry.test";

/// The registry's keys (made once per run): an old key and the signing one after a
/// rotation.
fn ring() -> &'static KeyRing {
    static RING: std::sync::OnceLock<KeyRing> = std::sync::OnceLock::new();
    RING.get_or_init(|| KeyRing::generate(0).unwrap().rotate(1, 3_600).unwrap())
}

/// The ring's public keys, as the registry publishes them.
fn jwks() -> &'static str {
    static JWKS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    JWKS.get_or_init(|| serde_json::to_string(&ring().jwks()).unwrap())
}

fn keys() -> KeySource {
    KeySource::Document(Arc::new(Verifier::from_jwks_json(jwks(), ISS, DEFAULT_AUDIENCE).unwrap()))
}

/// A token of `ring` for `agent` and `context` in `session`, valid until `expires_ms`.
fn issue(ring: &KeyRing, agent: &str, context: &Value, session: &str, expires_ms: i64) -> String {
    ring.issue(&TokenRequest {
        issuer: ISS,
        audience: DEFAULT_AUDIENCE,
        user_id: context["user"]["userId"].as_str(),
        agent_id: agent,
        session_id: session,
        context_json: &context.to_string(),
        now: expires_ms / 1000 - 3_600,
        ttl_seconds: 3_600,
    })
    .unwrap()
}
/// 2026-11-25T12:00:00Z.
const NOW_MS: i64 = 1_795_608_000_000;

/// An in-process stand-in for the registry's table: the definitions it holds (or the
/// error a read gives), how many reads it served, and how long a failing read takes
/// (it moves the harness's clock, as a read that times out would).
#[derive(Clone)]
struct Table {
    tool: Arc<Mutex<Result<Option<ToolDefinition>, String>>>,
    agent: Arc<Mutex<Result<Option<AgentDefinition>, String>>>,
    reads: Arc<AtomicUsize>,
    agent_reads: Arc<AtomicUsize>,
    clock: Arc<AtomicI64>,
    failing_read_ms: Arc<AtomicI64>,
}

impl Default for Table {
    fn default() -> Self {
        Self {
            tool: Arc::new(Mutex::new(Ok(None))),
            agent: Arc::new(Mutex::new(Ok(Some(agent(Value::Null))))),
            reads: Arc::default(),
            agent_reads: Arc::default(),
            clock: Arc::new(AtomicI64::new(NOW_MS)),
            failing_read_ms: Arc::default(),
        }
    }
}

impl Table {
    fn holding(tool: ToolDefinition) -> Self {
        Self { tool: Arc::new(Mutex::new(Ok(Some(tool)))), ..Self::default() }
    }
    fn fail(&self) {
        *self.tool.lock().unwrap() = Err("connection refused".into());
        *self.agent.lock().unwrap() = Err("connection refused".into());
    }
    fn reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }
    fn agent_reads(&self) -> usize {
        self.agent_reads.load(Ordering::SeqCst)
    }
    /// A failing read takes the clock `ms` forward.
    fn failing_reads_take(&self, ms: i64) {
        self.failing_read_ms.store(ms, Ordering::SeqCst);
    }
    fn answer<T: Clone>(&self, held: &Mutex<Result<T, String>>) -> Result<T, String> {
        let answer = held.lock().unwrap().clone();
        if answer.is_err() {
            self.clock.fetch_add(self.failing_read_ms.load(Ordering::SeqCst), Ordering::SeqCst);
        }
        answer
    }
}

impl RuleSource for Table {
    async fn tool(&self, _: &str) -> Result<Option<ToolDefinition>, StoreError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        self.answer(&self.tool).map_err(StoreError::Unavailable)
    }

    async fn agent(&self, id: &str) -> Result<Option<AgentDefinition>, StoreError> {
        self.agent_reads.fetch_add(1, Ordering::SeqCst);
        self.answer(&self.agent).map_err(StoreError::Unavailable).map(|a| a.map(|a| named(a, id)))
    }

    /// The agent (named as asked) and the tool, read together for the agent's grant
    /// (not counted: the counts are of the rules' and the limits' reads).
    async fn definitions(&self, id: &str) -> Result<Option<Fetched>, StoreError> {
        let agent = self.answer(&self.agent).map_err(StoreError::Unavailable)?;
        let tool = self.answer(&self.tool).map_err(StoreError::Unavailable)?;
        let Some(agent) = agent else { return Ok(None) };
        let mut defs = Fetched::default();
        defs.insert(Arc::new(Definition::Agent(named(agent, id))));
        if let Some(tool) = tool {
            defs.insert(Arc::new(Definition::Tool(tool)));
        }
        Ok(Some(defs))
    }
}

fn example_tool() -> ToolDefinition {
    let mut tool: ToolDefinition =
        serde_json::from_str(include_str!("../../../cli/example/convert-units.json")).unwrap();
    tool.server.version = Some(3);
    tool
}

/// A guard on `table` whose clock the test moves, logging into `lines`.
struct Harness {
    guard: Guard<Table>,
    table: Table,
    clock: Arc<AtomicI64>,
    lines: Arc<Mutex<Vec<Value>>>,
}

impl Harness {
    fn new() -> Self {
        Self::on(Table::holding(example_tool()))
    }
    fn on(table: Table) -> Self {
        let config = GuardConfig::new(TOOL_ID, keys()).with_max_staleness(Duration::from_secs(30));
        Self::with(Guard::new(config, table.clone()), table)
    }
    fn with(guard: Guard<Table>, table: Table) -> Self {
        let clock = table.clock.clone();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (c, l) = (clock.clone(), lines.clone());
        let guard = guard
            .with_clock(move || c.load(Ordering::SeqCst))
            .with_log(move |line| l.lock().unwrap().push(serde_json::from_str(line).unwrap()));
        Self { guard, table, clock, lines }
    }
    fn advance(&self, ms: i64) {
        self.clock.fetch_add(ms, Ordering::SeqCst);
    }
    fn last_line(&self) -> Value {
        self.lines.lock().unwrap().last().cloned().expect("a decision line")
    }
    /// Runs `event` through the guarded pipeline; the handler records that it ran.
    async fn call(&self, event: &Value) -> (ActionGroupResponse, bool) {
        let ran = AtomicBool::new(false);
        let body = serde_json::to_vec(event).unwrap();
        let response = handle_guarded(&self.guard, &body, |args: Convert| {
            ran.store(true, Ordering::SeqCst);
            Ok::<_, ToolError>(format!("converted {} {} to {}", args.value, args.from, args.to))
        })
        .await;
        (response, ran.load(Ordering::SeqCst))
    }
}

#[derive(Deserialize)]
struct Convert {
    value: f64,
    from: String,
    to: String,
}

/// Issues a token for `context` and `agent` in session `s-1` (the events'), as
/// resolution does, valid until `expires_ms`.
fn sign(agent: &str, context: Value, expires_ms: i64) -> String {
    issue(ring(), agent, &context, "s-1", expires_ms)
}

fn token() -> String {
    sign("support-bot", json!({"user": {"userId": "u-42", "roles": ["agent"]}}), NOW_MS + 3_600_000)
}

fn event(value: &str, to: &str, token: Option<&str>) -> Value {
    let mut attributes = json!({"tenant": "t-1"});
    if let Some(token) = token {
        attributes[SESSION_ATTRIBUTE] = json!(token);
    }
    json!({
        "messageVersion": "1.0",
        "agent": {"name": "units", "id": "AGENT1", "alias": "TSTALIASID", "version": "DRAFT"},
        "inputText": "convert", "sessionId": "s-1", "actionGroup": "convert_units",
        "function": "convert",
        "parameters": [
            {"name": "value", "type": "number", "value": value},
            {"name": "from", "type": "string", "value": "km"},
            {"name": "to", "type": "string", "value": to}
        ],
        "sessionAttributes": attributes, "promptSessionAttributes": {}
    })
}

fn body(response: &ActionGroupResponse) -> String {
    let json = serde_json::to_value(response).unwrap();
    json.pointer("/response/functionResponse/responseBody/TEXT/body")
        .and_then(Value::as_str)
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn an_allowed_call_reaches_the_handler_and_logs_one_line() {
    let h = Harness::new();
    let (response, ran) = h.call(&event("5", "m", Some(&token()))).await;
    assert!(ran);
    assert_eq!(response.state(), None);
    assert_eq!(body(&response), "converted 5 km to m");
    let line = h.last_line();
    assert_eq!(line["point"], "guard");
    assert_eq!(line["effect"], "allow");
    assert_eq!(line["outcome"], "allow");
    assert_eq!(line["ruleId"], "allow-calls");
    assert_eq!(line["toolId"], TOOL_ID);
    assert_eq!(line["toolVersion"], 3);
    assert_eq!(line["agentId"], "support-bot");
    assert_eq!(line["principalId"], "u-42");
    assert_eq!(line["function"], "convert");
    assert_eq!(line["sessionId"], "s-1");
    assert_eq!(line["_aws"]["CloudWatchMetrics"][0]["Metrics"][0]["Name"], "Decisions");
    assert_eq!(h.lines.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_log_only_rule_is_reported_and_changes_nothing() {
    let h = Harness::new();
    let (response, ran) = h.call(&event("5", "mi", Some(&token()))).await;
    assert!(ran, "metric-only is log-only: the call goes through");
    assert_eq!(response.state(), None);
    let line = h.last_line();
    assert_eq!(
        (line["effect"].as_str(), line["outcome"].as_str()),
        (Some("allow"), Some("would-deny"))
    );
    assert_eq!(line["wouldBeRuleId"], "metric-only");
    assert_eq!(line["RuleId"], "allow-calls");
}

#[tokio::test]
async fn an_over_limit_call_is_denied_before_the_handler() {
    let h = Harness::new();
    let (response, ran) = h.call(&event("2000000000", "m", Some(&token()))).await;
    assert!(!ran, "the handler never sees a denied call");
    assert_eq!(response.state(), Some(ResponseState::Reprompt));
    assert_eq!(
        body(&response),
        "The call to `convert` is not permitted: Quantities beyond a billion are refused (rule `no-huge-values`)."
    );
    let json = serde_json::to_value(&response).unwrap();
    assert_eq!(json["response"]["actionGroup"], "convert_units");
    assert_eq!(json["response"]["function"], "convert");
    assert_eq!(json["sessionAttributes"]["tenant"], "t-1", "session attributes carried over");
    let line = h.last_line();
    assert_eq!(
        (line["effect"].as_str(), line["ruleId"].as_str()),
        (Some("deny"), Some("no-huge-values"))
    );
    assert_eq!(line["reason"], "RULE_MATCH");
}

#[tokio::test]
async fn decision_lines_carry_no_argument_values_or_context_fields() {
    let h = Harness::new();
    h.call(&event("123456789012", "ft", Some(&token()))).await;
    h.call(&event("77.5", "cm", Some(&token()))).await;
    for line in h.lines.lock().unwrap().iter() {
        let text = line.to_string();
        for secret in ["123456789012", "77.5", "\"km\"", "\"ft\"", "roles", "tenant", "t-1"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert!(line.get("arguments").is_none() && line.get("context").is_none(), "{text}");
    }
}

/// A call refused before any rule decided: FAILURE, the reason logged, handler not run.
async fn assert_refused(h: &Harness, event: &Value, reason: &str, says: &str) -> Value {
    let (response, ran) = h.call(event).await;
    assert!(!ran, "{reason}: the handler ran");
    assert_eq!(response.state(), Some(ResponseState::Failure), "{reason}");
    let text = body(&response);
    assert!(text.starts_with("The call to `convert` is not permitted: "), "{text}");
    assert!(text.contains(says), "{reason}: {text}");
    assert!(!text.contains('\n'), "one line: {text}");
    let line = h.last_line();
    assert_eq!((line["effect"].as_str(), line["reason"].as_str()), (Some("deny"), Some(reason)));
    assert!(line["message"].as_str().is_some_and(|m| !m.is_empty()), "{line}");
    line
}

/// A call refused because the rules are `ms` old and cannot be read again.
async fn assert_stale(h: &Harness, token: &str, ms: u64) {
    let e = event("5", "m", Some(token));
    let line = assert_refused(h, &e, "RULES_STALE", "cannot be read").await;
    assert!(line["message"].as_str().unwrap().contains(&format!("{ms} ms old")), "{line}");
}

#[tokio::test]
async fn a_missing_context_is_refused() {
    let h = Harness::new();
    assert_refused(
        &h,
        &event("5", "m", None),
        "NO_SIGNED_CONTEXT",
        "no registry principal context",
    )
    .await;
}

#[tokio::test]
async fn a_tampered_context_is_refused() {
    let h = Harness::new();
    let token = token();
    // the payload says another agent now: same length, one character changed
    let (head, mac) = token.rsplit_once('.').unwrap();
    let mut payload: Vec<char> = head.chars().collect();
    let at = payload.len() - 5;
    payload[at] = if payload[at] == 'A' { 'B' } else { 'A' };
    let forged = format!("{}.{mac}", payload.into_iter().collect::<String>());
    let line =
        assert_refused(&h, &event("5", "m", Some(&forged)), "INVALID_SIGNED_CONTEXT", "not valid")
            .await;
    assert!(line["message"].as_str().unwrap().contains("signature"), "{line}");
    // signed with a key not in the key set; alg none; HS256 with the public key as the
    // secret; another audience; truncated; re-encoded; not a JWT: each line names why
    let other = KeyRing::generate(0).unwrap();
    let foreign = issue(&other, "a", &json!({}), "s-1", NOW_MS + 60_000);
    let (header, rest) = token.split_once('.').unwrap();
    let (payload, signature) = rest.split_once('.').unwrap();
    let b64 = |text: String| URL_SAFE_NO_PAD.encode(text);
    let kid = ring().signing().kid();
    let none = format!("{}.{payload}.", b64(format!(r#"{{"alg":"none","kid":"{kid}"}}"#)));
    let hs256 = {
        let mut hs = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
        hs.kid = Some(kid.to_owned());
        let claims: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
        let secret = jwks().as_bytes();
        jsonwebtoken::encode(&hs, &claims, &jsonwebtoken::EncodingKey::from_secret(secret)).unwrap()
    };
    let other_audience = ring()
        .issue(&TokenRequest {
            issuer: ISS,
            audience: "another-audience",
            user_id: None,
            agent_id: "support-bot",
            session_id: "s-1",
            context_json: "{}",
            now: NOW_MS / 1000,
            ttl_seconds: 60,
        })
        .unwrap();
    let truncated = token[..token.len() - 10].to_owned();
    let padded = format!("{header}.{payload}=.{signature}");
    for (bad, says) in [
        (foreign.as_str(), "not in the registry's key set"),
        (none.as_str(), "algorithm `none` is not accepted"),
        (hs256.as_str(), "algorithm `HS256` is not accepted"),
        (other_audience.as_str(), "audience"),
        (truncated.as_str(), "signature"),
        (padded.as_str(), "signature"),
        ("v1.nonsense", "malformed"),
    ] {
        let line =
            assert_refused(&h, &event("5", "m", Some(bad)), "INVALID_SIGNED_CONTEXT", "not valid")
                .await;
        assert!(line["message"].as_str().unwrap().contains(says), "{says}: {line}");
    }
}

#[tokio::test]
async fn a_token_of_another_session_is_refused() {
    let h = Harness::new();
    let elsewhere =
        issue(ring(), "support-bot", &json!({"user": {"userId": "u-42"}}), "s-2", NOW_MS + 60_000);
    let line = assert_refused(
        &h,
        &event("5", "m", Some(&elsewhere)),
        "SESSION_MISMATCH",
        "belongs to another session",
    )
    .await;
    assert!(line["message"].as_str().unwrap().contains("sid"), "{line}");
    assert_eq!(line["sessionId"], "s-1");
}

#[tokio::test]
async fn an_expired_context_is_refused_also_once_verified() {
    let h = Harness::new();
    let short = sign("support-bot", json!({"user": {"userId": "u-42"}}), NOW_MS + 60_000);
    let (_, ran) = h.call(&event("5", "m", Some(&short))).await;
    assert!(ran, "valid for another minute");
    h.advance(60_000);
    let stale = sign("support-bot", json!({}), NOW_MS - 1_000);
    for (token, says) in [(short.as_str(), "expired"), (stale.as_str(), "resolve the agent again")]
    {
        assert_refused(&h, &event("5", "m", Some(token)), "EXPIRED_SIGNED_CONTEXT", says).await;
    }
}

#[tokio::test]
async fn rotated_keys_still_verify_and_the_signing_key_is_first() {
    let h = Harness::new();
    // the key the ring signed with before its rotation
    let old_only = ring().remove(ring().keys()[1].key.kid());
    assert!(old_only.is_ok());
    let old = KeyRing::new(vec![ring().keys()[1].clone()]).unwrap();
    let by_old_key = issue(&old, "a", &json!({}), "s-1", NOW_MS + 60_000);
    let (_, ran) = h.call(&event("5", "m", Some(&by_old_key))).await;
    assert!(ran, "the retired key is still in the key set after the rotation");
    let header: Value = serde_json::from_slice(
        &URL_SAFE_NO_PAD.decode(token().split('.').next().unwrap()).unwrap(),
    )
    .unwrap();
    assert_eq!(header["kid"], ring().signing().kid(), "the new key signs");
}

#[tokio::test]
async fn unreadable_rules_on_a_cold_container_are_refused() {
    let table = Table::default();
    table.fail();
    let h = Harness::on(table);
    let line =
        assert_refused(&h, &event("5", "m", Some(&token())), "RULES_UNAVAILABLE", "cannot be read")
            .await;
    assert!(line["message"].as_str().unwrap().contains("connection refused"), "{line}");
    assert_eq!(line["agentId"], "support-bot", "who asked is still logged");
    // no such tool in the table: the same
    let h = Harness::on(Table::default());
    assert_refused(&h, &event("5", "m", Some(&token())), "RULES_UNAVAILABLE", "cannot be read")
        .await;
}

#[tokio::test]
async fn cached_rules_serve_until_the_staleness_bound_then_calls_are_refused() {
    let h = Harness::new();
    let token = token();
    assert!(h.call(&event("5", "m", Some(&token))).await.1);
    assert_eq!(h.table.reads(), 1);
    h.advance(14_999);
    assert!(h.call(&event("5", "m", Some(&token))).await.1);
    assert_eq!(h.table.reads(), 1, "younger than half the bound: no re-read");

    h.table.fail();
    h.advance(1);
    assert!(h.call(&event("5", "m", Some(&token))).await.1, "re-read fails: cached rules serve");
    assert_eq!(h.table.reads(), 2);
    let (denied, ran) = h.call(&event("2000000000", "m", Some(&token))).await;
    assert!(!ran && denied.state() == Some(ResponseState::Reprompt), "cached rules still decide");
    h.advance(14_999);
    assert!(h.call(&event("5", "m", Some(&token))).await.1, "29.999 s old: still within the bound");
    h.advance(1);
    assert_stale(&h, &token, 30000).await;
    assert_eq!(h.table.reads(), 3, "the denied call and this one came while backing off");

    *h.table.tool.lock().unwrap() = Ok(Some(example_tool()));
    *h.table.agent.lock().unwrap() = Ok(Some(agent(Value::Null)));
    h.advance(2_000);
    assert!(h.call(&event("5", "m", Some(&token))).await.1, "a successful read serves again");
    assert_eq!(h.table.reads(), 4);
}

/// `agent` as the agent `id` (the stand-in holds one agent for every id).
fn named(mut agent: AgentDefinition, id: &str) -> AgentDefinition {
    id.clone_into(&mut agent.agent_id);
    agent
}

fn agent(limits: Value) -> AgentDefinition {
    serde_json::from_value(json!({
        "agentId": "support-bot",
        "basePrompt": "You help travellers convert units, a few times per conversation.",
        "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
        "toolIds": [TOOL_ID],
        "limits": limits
    }))
    .unwrap()
}

#[tokio::test]
async fn the_agent_and_the_rules_are_served_stale_on_one_timer_while_the_table_is_down() {
    let h = Harness::new();
    *h.table.agent.lock().unwrap() = Ok(Some(agent(Value::Null)));
    let token = token();
    assert!(h.call(&event("5", "m", Some(&token))).await.1);
    assert_eq!((h.table.reads(), h.table.agent_reads()), (1, 1));
    h.advance(15_000);
    assert!(h.call(&event("5", "m", Some(&token))).await.1);
    assert_eq!((h.table.reads(), h.table.agent_reads()), (2, 2), "both due at half the bound");

    h.table.fail();
    h.advance(15_000);
    let (_, ran) = h.call(&event("5", "m", Some(&token))).await;
    assert!(ran, "rules and agent read 15 s ago serve: {}", h.last_line());
    assert_eq!(h.table.reads(), 3, "one failed read, then the table is left alone");
    for _ in 0..5 {
        assert!(h.call(&event("5", "m", Some(&token))).await.1, "{}", h.last_line());
    }
    assert_eq!((h.table.reads(), h.table.agent_reads()), (3, 2), "backing off: no read");
    h.advance(14_999);
    assert!(h.call(&event("5", "m", Some(&token))).await.1, "29.999 s old: {}", h.last_line());
    h.advance(1);
    assert_stale(&h, &token, 30000).await;
}

#[tokio::test]
async fn staleness_is_judged_when_the_table_has_answered() {
    let h = Harness::new();
    let token = token();
    assert!(h.call(&event("5", "m", Some(&token))).await.1);
    h.table.fail();
    h.table.failing_reads_take(2_000);
    h.advance(29_000);
    // the read starts 29 s after the last one and fails 2 s later: the rules are 31 s old
    assert_stale(&h, &token, 31000).await;
}

#[tokio::test]
async fn a_counted_call_needs_a_bedrock_session_id() {
    let h = Harness::new();
    *h.table.agent.lock().unwrap() = Ok(Some(agent(json!({"maxToolCalls": 5}))));
    // tokens bound to ids the registry never issues them for: refused all the same
    for bad in ["", "a", "a\nb", "a\u{0}b", "a b"] {
        let token = issue(ring(), "support-bot", &json!({}), bad, NOW_MS + 60_000);
        let mut e = event("5", "m", Some(&token));
        e["sessionId"] = json!(bad);
        let line = assert_refused(&h, &e, "INVALID_SESSION", "session's id is not valid").await;
        assert!(line.get("sessionId").is_none(), "an invalid id is not logged: {line}");
    }
    let mut e = event("5", "m", Some(&token()));
    e["sessionId"] = json!("s".repeat(900_000));
    let line = assert_refused(&h, &e, "SESSION_MISMATCH", "another session").await;
    assert!(line.get("sessionId").is_none(), "an invalid id is not logged: {line}");
}

#[tokio::test]
async fn a_rule_change_is_seen_after_the_refresh() {
    let h = Harness::new();
    let token = token();
    assert!(h.call(&event("5", "m", Some(&token))).await.1);
    let mut stricter = example_tool();
    let rules = stricter.call_rules.as_mut().unwrap();
    rules[0].condition = Some("call.arguments.value > 1.0".into());
    *h.table.tool.lock().unwrap() = Ok(Some(stricter));
    assert!(h.call(&event("5", "m", Some(&token))).await.1, "cached rules until the re-read");
    h.advance(15_000);
    assert!(!h.call(&event("5", "m", Some(&token))).await.1, "re-read: the stricter rule denies");
}

#[tokio::test]
async fn rules_see_the_principal_the_agent_and_the_tool() {
    let mut tool = example_tool();
    let rules = tool.call_rules.as_mut().unwrap();
    let deny = |id: &str, condition: &str| {
        serde_json::from_value(json!({"id": id, "effect": "deny", "condition": condition})).unwrap()
    };
    rules.insert(0, deny("not-this-agent", "request.agentId == 'blocked-bot'"));
    rules.insert(1, deny("only-this-tool", "request.toolId != 'convert_units@1.0.0'"));
    rules.insert(2, deny("interns-small", "'intern' in user.roles && call.arguments.value > 10.0"));
    let h = Harness::on(Table::holding(tool));
    let blocked = sign("blocked-bot", json!({}), NOW_MS + 60_000);
    assert!(!h.call(&event("5", "m", Some(&blocked))).await.1);
    assert_eq!(h.last_line()["ruleId"], "not-this-agent");
    assert!(h.call(&event("5", "m", Some(&token()))).await.1, "request.toolId is the guard's tool");
    let intern = sign("support-bot", json!({"user": {"roles": ["intern"]}}), NOW_MS + 60_000);
    assert!(h.call(&event("5", "m", Some(&intern))).await.1);
    let (response, ran) = h.call(&event("50", "m", Some(&intern))).await;
    assert!(!ran);
    assert!(body(&response).contains("denied by rule `interns-small`"), "{}", body(&response));
}

#[tokio::test]
async fn the_tools_access_rules_decide_first_as_authorize_does() {
    let mut tool = example_tool();
    tool.access_rules = Some(vec![
        serde_json::from_value(json!({"id": "agents-only", "effect": "allow",
            "condition": "'agent' in user.roles", "description": "Only support agents"}))
        .unwrap(),
    ]);
    let h = Harness::on(Table::holding(tool));
    assert!(h.call(&event("5", "m", Some(&token()))).await.1, "u-42 has the role");
    let other = sign("support-bot", json!({"user": {"roles": ["guest"]}}), NOW_MS + 60_000);
    let (response, ran) = h.call(&event("5", "m", Some(&other))).await;
    assert!(!ran);
    assert_eq!(response.state(), Some(ResponseState::Reprompt));
    assert_eq!(
        body(&response),
        "The call to `convert` is not permitted: the tool is not granted to this principal: no rule allows it."
    );
    assert_eq!(h.last_line()["reason"], "NO_MATCH");
}

#[tokio::test]
async fn arguments_the_schema_refuses_are_reprompted_before_any_rule() {
    let h = Harness::new();
    let (response, ran) = h.call(&event("12abc", "m", Some(&token()))).await;
    assert!(!ran);
    assert_eq!(response.state(), Some(ResponseState::Reprompt));
    assert!(body(&response).contains("`value`"), "{}", body(&response));
    assert_eq!(h.last_line()["reason"], "INVALID_ARGUMENTS");
}

#[tokio::test]
async fn a_switched_off_tool_is_refused() {
    let mut tool = example_tool();
    tool.lifecycle = Some(serde_json::from_value(json!({"status": "disabled"})).unwrap());
    let h = Harness::on(Table::holding(tool));
    assert_refused(&h, &event("5", "m", Some(&token())), "TOOL_SWITCHED_OFF", "switched off").await;
}

#[tokio::test]
async fn an_unconfigured_guard_refuses_everything() {
    let table = Table::holding(example_tool());
    let h = Harness::with(
        Guard::misconfigured(ConfigError::missing(TOOL_ID_ENV, "the tool")),
        table.clone(),
    );
    let line = assert_refused(
        &h,
        &event("5", "m", Some(&token())),
        "GUARD_NOT_CONFIGURED",
        "not configured",
    )
    .await;
    assert_eq!(line["message"], "REGISTRY_TOOL_ID is not set: the tool");
    assert_eq!(table.reads(), 0);
}

#[tokio::test]
async fn the_api_form_is_checked_too() {
    let h = Harness::new();
    let mut api = event("2000000000", "m", Some(&token()));
    let params = api["parameters"].take();
    let object = api.as_object_mut().unwrap();
    object.remove("function");
    object.insert("apiPath".into(), json!("/convert"));
    object.insert("httpMethod".into(), json!("POST"));
    object.insert("parameters".into(), params);
    let parsed = parse_event(&api).unwrap();
    let Verdict::Deny(response) = h.guard.check(&parsed).await else { panic!("allowed") };
    // `/convert` is not a function of the schema: `value` keeps its JSON type and the
    // rule still compares it
    let json = serde_json::to_value(&response).unwrap();
    assert_eq!(json["response"]["httpStatusCode"], 403, "{json}");
}

#[test]
fn configuration_from_the_environment_names_every_problem() {
    let vars = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned())
    };
    let problems =
        GuardConfig::from_vars(vars(&[("REGISTRY_GUARD_MAX_STALENESS_SECONDS", "soon")]))
            .unwrap_err()
            .to_string();
    for name in [
        "REGISTRY_TOOL_ID",
        "REGISTRY_TOKEN_ISSUER",
        "REGISTRY_JWKS_URL",
        "REGISTRY_GUARD_MAX_STALENESS_SECONDS",
    ] {
        assert!(problems.contains(name), "{problems}");
    }
    let env: &'static [(&'static str, &'static str)] = Box::leak(Box::new([
        ("REGISTRY_TOOL_ID", "convert_units@1.0.0"),
        ("REGISTRY_TOKEN_ISSUER", ISS),
        ("REGISTRY_JWKS", jwks()),
        ("REGISTRY_GUARD_MAX_STALENESS_SECONDS", "1.5"),
    ]));
    let config = GuardConfig::from_vars(vars(env)).unwrap();
    assert_eq!(config.max_staleness, Duration::from_millis(1500));
    assert!(matches!(*config.keys, KeySource::Document(_)));
    let defaults = GuardConfig::from_vars(vars(&[
        ("REGISTRY_TOOL_ID", "t"),
        ("REGISTRY_TOKEN_ISSUER", ISS),
        ("REGISTRY_JWKS_URL", "http://127.0.0.1:1/.well-known/jwks.json"),
    ]))
    .unwrap();
    assert_eq!(defaults.max_staleness, Duration::from_secs(30));
    assert!(matches!(*defaults.keys, KeySource::Url(_)));
    let bad_keys = GuardConfig::from_vars(vars(&[
        ("REGISTRY_TOOL_ID", "t"),
        ("REGISTRY_TOKEN_ISSUER", ISS),
        ("REGISTRY_JWKS", r#"{"keys":[]}"#),
    ]))
    .unwrap_err()
    .to_string();
    assert!(bad_keys.contains("REGISTRY_JWKS"), "{bad_keys}");
    assert!(registry_guard::switched_off(vars(&[("REGISTRY_GUARD", "OFF")])));
    assert!(!registry_guard::switched_off(vars(&[("REGISTRY_GUARD", "on")])));
}

/// What the last call's decision line says: its reason and stage.
fn reason_and_stage(h: &Harness) -> (String, String) {
    let line = h.last_line();
    let text = |k: &str| line[k].as_str().unwrap_or_default().to_owned();
    (text("reason"), text("stage"))
}

#[tokio::test]
async fn a_token_grants_only_its_agents_tools_and_stops_within_the_bound() {
    let h = Harness::new();
    let token = token();
    assert!(h.call(&event("5", "m", Some(&token))).await.1, "the agent names the tool");

    // another agent's tool: the agent no longer names this one
    let mut other = agent(Value::Null);
    other.tool_ids = vec!["another_tool@1.0.0".into()];
    *h.table.agent.lock().unwrap() = Ok(Some(other));
    assert!(h.call(&event("5", "m", Some(&token))).await.1, "cached definitions until the re-read");
    h.advance(15_000);
    let (response, ran) = h.call(&event("5", "m", Some(&token))).await;
    assert!(!ran);
    assert_eq!(response.state(), Some(ResponseState::Reprompt));
    assert!(body(&response).contains("not granted"), "{}", body(&response));
    assert_eq!(reason_and_stage(&h), ("NOT_GRANTED".into(), "grant".into()));

    // disabled, then deleted: refused at the next re-read, half the bound
    let mut disabled = agent(Value::Null);
    disabled.lifecycle = Some(serde_json::from_value(json!({"status": "disabled"})).unwrap());
    *h.table.agent.lock().unwrap() = Ok(Some(agent(Value::Null)));
    h.advance(15_000);
    assert!(h.call(&event("5", "m", Some(&token))).await.1, "granted again");
    *h.table.agent.lock().unwrap() = Ok(Some(disabled));
    h.advance(14_999);
    assert!(h.call(&event("5", "m", Some(&token))).await.1, "within half the bound: cached");
    h.advance(1);
    assert!(!h.call(&event("5", "m", Some(&token))).await.1, "a disabled agent grants nothing");
    assert_eq!(reason_and_stage(&h), ("NOT_GRANTED".into(), "grant".into()));
    *h.table.agent.lock().unwrap() = Ok(None);
    h.advance(15_000);
    assert!(!h.call(&event("5", "m", Some(&token))).await.1, "a deleted agent grants nothing");
    assert_eq!(reason_and_stage(&h), ("NOT_GRANTED".into(), "grant".into()));
}

#[tokio::test]
async fn a_deleted_agents_limits_are_not_lifted() {
    let h = Harness::new();
    *h.table.agent.lock().unwrap() = Ok(None);
    let token = token();
    for _ in 0..3 {
        assert!(!h.call(&event("5", "m", Some(&token))).await.1, "never counted as unlimited");
        assert_eq!(reason_and_stage(&h), ("NOT_GRANTED".into(), "grant".into()));
    }
}
