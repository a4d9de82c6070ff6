//! The gateway point on the registry's embedded store (SQLite, as in `serve`): the
//! example tool served as target `units`, an agent allowed two calls per session, and
//! principal tokens of a real key ring; each case decided as `authorize` decides it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use registry_core::{AgentDefinition, Definition, ToolDefinition};
use registry_gateway::{
    Call, Caller, DecisionPoint, DecisionRecord, DenialKind, Gateway, GatewayConfig, Listed,
    StoreSource, Verdict,
};
use registry_store::{Expected, Store};
use registry_store_sqlite::SqliteStore;
use registry_token::{KeyRing, KeySource, TokenRequest, Verifier};
use serde_json::{Map, Value, json};

const ISSUER: &str = "https://registry.example.com";
const AUDIENCE: &str = "agent-registry";
const NOW_S: i64 = 1_900_000_000;

fn example_tool(patch: Value) -> ToolDefinition {
    let mut tool: Value =
        serde_json::from_str(include_str!("../../../cli/example/convert-units.json")).unwrap();
    for (k, v) in patch.as_object().unwrap() {
        tool[k] = v.clone();
    }
    serde_json::from_value(tool).unwrap()
}

struct Setup {
    gateway: Gateway<StoreSource>,
    lines: Arc<Mutex<Vec<DecisionRecord>>>,
    ring: KeyRing,
    _dir: tempfile::TempDir,
}

async fn setup(claims: Option<&str>) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("registry.db")).unwrap();
    let tags = json!({"gateway-target": "units"});
    store
        .put(Definition::Tool(example_tool(json!({"tags": tags}))), Expected::Absent)
        .await
        .unwrap();
    let staff_only = json!({
        "toolId": "staff_units@1.0.0", "name": "staff_units",
        "tags": {"gateway-target": "staff"},
        "accessRules": [{"id": "staff-only", "effect": "allow", "condition": "'staff' in user.roles"}]
    });
    store.put(Definition::Tool(example_tool(staff_only)), Expected::Absent).await.unwrap();
    // a tool no agent uses: no token of an agent is granted it
    let hidden = json!({
        "toolId": "hidden_units@1.0.0", "name": "hidden_units",
        "tags": {"gateway-target": "hidden"}
    });
    store.put(Definition::Tool(example_tool(hidden)), Expected::Absent).await.unwrap();
    let agent: AgentDefinition = serde_json::from_value(json!({
        "agentId": "budget-bot", "description": "Two calls per session.",
        "basePrompt": "You convert units for people, using the tool you are given.",
        "foundationModel": "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "toolIds": ["convert_units@1.0.0", "staff_units@1.0.0"],
        "limits": {"maxToolCalls": 2}
    }))
    .unwrap();
    store.put(Definition::Agent(agent), Expected::Absent).await.unwrap();
    let ring = KeyRing::generate(NOW_S).unwrap();
    let verifier =
        Verifier::from_jwks_json(&serde_json::to_string(&ring.jwks()).unwrap(), ISSUER, AUDIENCE)
            .unwrap();
    let mut config = GatewayConfig::new(KeySource::Document(Arc::new(verifier)));
    config.claims = claims.map(|c| registry_gateway::ClaimsMapping::parse(c).unwrap());
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    let store: Arc<dyn Store> = Arc::new(store);
    let gateway = Gateway::new(config, StoreSource::new(store), DecisionPoint::ExtMcp)
        .with_clock(|| NOW_S * 1000)
        .with_log(move |record| sink.lock().unwrap().push(record));
    Setup { gateway, lines, ring, _dir: dir }
}

fn token(ring: &KeyRing, roles: &[&str], session: &str) -> String {
    let context = json!({"user": {"userId": "u-7", "roles": roles}}).to_string();
    ring.issue(&TokenRequest {
        issuer: ISSUER,
        audience: AUDIENCE,
        user_id: Some("u-7"),
        agent_id: "budget-bot",
        session_id: session,
        context_json: &context,
        now: NOW_S,
        ttl_seconds: 3_600,
    })
    .unwrap()
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

async fn call(s: &Setup, caller: Caller<'_>, tool: &str, arguments: Value) -> Verdict {
    let arguments = args(arguments);
    s.gateway
        .call(Call { caller, target: "units", tool, arguments: &arguments, session_id: None })
        .await
}

fn last(s: &Setup) -> Value {
    serde_json::to_value(s.lines.lock().unwrap().last().cloned().unwrap()).unwrap()
}

fn kind(verdict: &Verdict) -> Option<DenialKind> {
    match verdict {
        Verdict::Allow => None,
        Verdict::Deny(denial) => Some(denial.kind),
    }
}

#[tokio::test]
async fn calls_decide_as_authorize_and_the_third_of_a_session_is_exhausted() {
    let s = setup(None).await;
    let bearer = format!("Bearer {}", token(&s.ring, &["staff"], "s-1"));
    let ok = json!({"value": 3.0, "from": "km", "to": "m"});
    assert_eq!(call(&s, Caller::Bearer(&bearer), "convert", ok.clone()).await, Verdict::Allow);
    let line = last(&s);
    assert_eq!(
        (line["point"].as_str(), line["toolId"].as_str()),
        (Some("ext-mcp"), Some("convert_units@1.0.0"))
    );
    assert_eq!(
        (line["agentId"].as_str(), line["sessionId"].as_str()),
        (Some("budget-bot"), Some("s-1"))
    );

    // log-only: allowed, logged as would-deny
    let imperial = json!({"value": 3.0, "from": "km", "to": "mi"});
    assert_eq!(call(&s, Caller::Bearer(&bearer), "convert", imperial).await, Verdict::Allow);
    assert_eq!(last(&s)["outcome"], "would-deny");

    // third call of the session: the budget is spent
    let third = call(&s, Caller::Bearer(&bearer), "convert", ok.clone()).await;
    assert_eq!(kind(&third), Some(DenialKind::Exhausted), "{third:?}");
    assert_eq!(last(&s)["limit"], "maxToolCalls");

    // a rule's denial names the rule (another session)
    let other = token(&s.ring, &["staff"], "s-2");
    let huge = json!({"value": 2e9, "from": "km", "to": "m"});
    let Verdict::Deny(denied) = call(&s, Caller::Bearer(&other), "convert", huge).await else {
        panic!("allowed");
    };
    assert_eq!(
        (denied.kind, denied.rule_id.as_deref()),
        (DenialKind::Denied, Some("no-huge-values"))
    );
    assert!(denied.reason.contains("no-huge-values"), "{}", denied.reason);
}

#[tokio::test]
async fn what_cannot_be_decided_is_denied_with_its_reason() {
    let s = setup(None).await;
    let bearer = token(&s.ring, &["staff"], "s-3");
    let ok = json!({"value": 3.0, "from": "km", "to": "m"});
    let cases = [
        (
            call(&s, Caller::Anonymous, "convert", ok.clone()).await,
            DenialKind::Denied,
            "NO_PRINCIPAL",
        ),
        (
            call(&s, Caller::Bearer(&bearer), "nope", ok.clone()).await,
            DenialKind::Denied,
            "UNKNOWN_TOOL",
        ),
        (
            call(&s, Caller::Bearer("x.y.z"), "convert", ok.clone()).await,
            DenialKind::Denied,
            "INVALID_SIGNED_CONTEXT",
        ),
        (
            call(&s, Caller::Bearer(&bearer), "convert", json!({"value": "3", "from": "km"})).await,
            DenialKind::Invalid,
            "INVALID_ARGUMENTS",
        ),
    ];
    let lines = s.lines.lock().unwrap().clone();
    for ((verdict, expected, reason), line) in cases.into_iter().zip(lines) {
        assert_eq!(kind(&verdict), Some(expected), "{verdict:?}");
        assert_eq!(line.reason, reason);
    }
    let unknown_target = s
        .gateway
        .call(Call {
            caller: Caller::Bearer(&bearer),
            target: "nowhere",
            tool: "convert",
            arguments: &args(ok),
            session_id: None,
        })
        .await;
    assert_eq!(kind(&unknown_target), Some(DenialKind::Denied));
    assert_eq!(last(&s)["reason"], "UNKNOWN_TOOL");
}

#[tokio::test]
async fn a_list_keeps_exactly_the_granted_tools() {
    let s = setup(None).await;
    let listed = [
        Listed { target: "units", tool: "convert" },
        Listed { target: "staff", tool: "convert" },
        Listed { target: "units", tool: "nope" },
        Listed { target: "nowhere", tool: "convert" },
        Listed { target: "hidden", tool: "convert" },
    ];
    let staff = token(&s.ring, &["staff"], "s-4");
    let kept = s.gateway.list(Caller::Bearer(&staff), &listed).await;
    assert_eq!(kept, [true, true, false, false, false]);
    let guest = token(&s.ring, &["guest"], "s-5");
    let kept = s.gateway.list(Caller::Bearer(&guest), &listed).await;
    assert_eq!(kept, [true, false, false, false, false]);
    assert_eq!(s.gateway.list(Caller::Anonymous, &listed).await, [false; 5]);
    let lines = s.lines.lock().unwrap().clone();
    assert_eq!(lines.len(), 3, "one line per list");
    let listing = |n: usize| serde_json::to_value(&lines[n]).unwrap()["listed"].clone();
    assert_eq!(
        listing(0),
        json!({"kept": 2, "withheld": 3, "withheldBy": {"NOT_GRANTED": 1, "UNKNOWN_TOOL": 2}})
    );
    assert_eq!(listing(1)["kept"], 1);
    assert_eq!(listing(1)["withheld"], 4);
    assert_eq!(listing(2), json!({"kept": 0, "withheld": 5, "withheldBy": {"NO_PRINCIPAL": 5}}));
}

#[tokio::test]
async fn a_tool_outside_the_agents_grant_is_denied_not_granted() {
    let s = setup(None).await;
    let bearer = token(&s.ring, &["staff"], "s-6");
    let ok = args(json!({"value": 5, "from": "km", "to": "m"}));
    let verdict = s
        .gateway
        .call(Call {
            caller: Caller::Bearer(&bearer),
            target: "hidden",
            tool: "convert",
            arguments: &ok,
            session_id: None,
        })
        .await;
    assert_eq!(kind(&verdict), Some(DenialKind::Denied));
    let line = last(&s);
    assert_eq!(line["reason"], "NOT_GRANTED");
    assert_eq!(line["stage"], "grant");
    assert_eq!(line["agentId"], "budget-bot");
}

#[tokio::test]
async fn three_thousand_listed_tools_write_one_decision_line() {
    let s = setup(None).await;
    let names: Vec<String> = (0..3_000).map(|i| format!("t{i}")).collect();
    let mut listed: Vec<Listed<'_>> =
        names.iter().map(|n| Listed { target: n.as_str(), tool: "x" }).collect();
    listed.push(Listed { target: "units", tool: "convert" });
    let staff = token(&s.ring, &["staff"], "s-7");
    let kept = s.gateway.list(Caller::Bearer(&staff), &listed).await;
    assert_eq!(kept.iter().filter(|k| **k).count(), 1);
    let lines = s.lines.lock().unwrap().clone();
    assert_eq!(lines.len(), 1, "one line for 3,001 listed tools");
    let line = serde_json::to_value(&lines[0]).unwrap();
    assert_eq!(line["listed"]["kept"], 1);
    assert_eq!(line["listed"]["withheld"], 3_000);
}

#[tokio::test]
async fn claims_a_gateway_validated_are_mapped_when_configured() {
    let mapped = setup(Some(r#"{"user.userId": "sub", "user.roles": "groups"}"#)).await;
    let claims = args(json!({"sub": "u-9", "groups": ["staff"]}));
    let listed = [Listed { target: "staff", tool: "convert" }];
    assert_eq!(mapped.gateway.list(Caller::Claims(&claims), &listed).await, [true]);
    assert_eq!(last(&mapped)["principalId"], "u-9");
    let unmapped = setup(None).await;
    assert_eq!(unmapped.gateway.list(Caller::Claims(&claims), &listed).await, [false]);
    assert_eq!(last(&unmapped)["reason"], "INVALID_SIGNED_CONTEXT");
}

/// The embedded store answering as DynamoDB does for keys no item can have: a key
/// that is empty or over 2,048 bytes is a `ValidationException` (a tag's value, a
/// filter, only over that size); what it refused is kept.
struct Strict {
    inner: StoreSource,
    refused: Arc<Mutex<Vec<String>>>,
}

const DYNAMODB_MAX_KEY_BYTES: usize = 2_048;

impl Strict {
    fn check(&self, key: &str, may_be_empty: bool) -> Result<(), registry_store::StoreError> {
        if (key.is_empty() && !may_be_empty) || key.len() > DYNAMODB_MAX_KEY_BYTES {
            self.refused.lock().unwrap().push(key.to_owned());
            let message = format!("DynamoDB: ValidationException: a key of {} bytes", key.len());
            return Err(registry_store::StoreError::Backend(message));
        }
        Ok(())
    }
}

impl registry_gateway::RuleSource for Strict {
    async fn tool(
        &self,
        tool_id: &str,
    ) -> Result<Option<ToolDefinition>, registry_store::StoreError> {
        self.check(tool_id, false)?;
        self.inner.tool(tool_id).await
    }

    async fn agent(
        &self,
        agent_id: &str,
    ) -> Result<Option<AgentDefinition>, registry_store::StoreError> {
        self.check(agent_id, false)?;
        self.inner.agent(agent_id).await
    }

    fn counters(&self) -> Option<&dyn Store> {
        self.inner.counters()
    }

    async fn tools_tagged(
        &self,
        key: &str,
        value: &str,
    ) -> Result<Vec<(String, registry_core::LifecycleStatus)>, registry_store::StoreError> {
        self.check(value, true)?;
        self.inner.tools_tagged(key, value).await
    }
}

#[tokio::test]
async fn a_target_no_tool_can_have_is_unknown_and_never_read_nor_blocks_others() {
    let s = setup(None).await;
    let refused = Arc::new(Mutex::new(Vec::new()));
    let store: Arc<dyn Store> =
        Arc::new(SqliteStore::open(s._dir.path().join("registry.db")).unwrap());
    let jwks = serde_json::to_string(&s.ring.jwks()).unwrap();
    let verifier = Verifier::from_jwks_json(&jwks, ISSUER, AUDIENCE).unwrap();
    let config = GatewayConfig::new(KeySource::Document(Arc::new(verifier)));
    let source = Strict { inner: StoreSource::new(store), refused: Arc::clone(&refused) };
    let gateway =
        Gateway::new(config, source, DecisionPoint::GatewayInterceptor).with_clock(|| NOW_S * 1000);
    let bearer = token(&s.ring, &["staff"], "s-6");
    let ok = args(json!({"value": 3.0, "from": "km", "to": "m"}));
    let long = "t".repeat(3_000);
    for hostile in [long.as_str(), "", "a\0b", "ünits", "units\u{fffd}", "a b/c"] {
        let verdict = gateway
            .call(Call {
                caller: Caller::Bearer(&bearer),
                target: hostile,
                tool: "convert",
                arguments: &ok,
                session_id: None,
            })
            .await;
        assert_eq!(kind(&verdict), Some(DenialKind::Denied), "{hostile:?}");
        let listed = [Listed { target: hostile, tool: "convert" }];
        assert_eq!(gateway.list(Caller::Bearer(&bearer), &listed).await, [false]);
    }
    assert_eq!(refused.lock().unwrap().len(), 0, "looked up names no tool can have");
    // the next caller is decided, not refused because the table "failed"
    let call = Call {
        caller: Caller::Bearer(&bearer),
        target: "units",
        tool: "convert",
        arguments: &ok,
        session_id: None,
    };
    assert_eq!(gateway.call(call).await, Verdict::Allow);
}

#[tokio::test]
async fn a_mapped_agent_that_is_no_id_is_refused_without_a_read() {
    let s = setup(None).await;
    let refused = Arc::new(Mutex::new(Vec::new()));
    let store: Arc<dyn Store> =
        Arc::new(SqliteStore::open(s._dir.path().join("registry.db")).unwrap());
    let config = GatewayConfig {
        keys: None,
        claims: Some(
            registry_gateway::ClaimsMapping::parse(r#"{"user.userId": "sub", "agentId": "azp"}"#)
                .unwrap(),
        ),
        agent: Some("budget-bot".into()),
        max_staleness: std::time::Duration::from_secs(30),
    };
    let source = Strict { inner: StoreSource::new(store), refused: Arc::clone(&refused) };
    let gateway =
        Gateway::new(config, source, DecisionPoint::GatewayInterceptor).with_clock(|| NOW_S * 1000);
    let ok = args(json!({"value": 3.0, "from": "km", "to": "m"}));
    let long = "a".repeat(3_000);
    for agent in [json!(long), json!(""), json!("bad agent"), json!(7), json!(["budget-bot"])] {
        let claims = args(json!({"sub": "u-1", "azp": agent}));
        let verdict = gateway
            .call(Call {
                caller: Caller::Claims(&claims),
                target: "units",
                tool: "convert",
                arguments: &ok,
                session_id: Some("mcp-1"),
            })
            .await;
        assert_eq!(kind(&verdict), Some(DenialKind::Denied), "{agent}");
    }
    assert_eq!(refused.lock().unwrap().len(), 0, "read an agent no item can be");
    let claims = args(json!({"sub": "u-1", "azp": "budget-bot"}));
    let call = Call {
        caller: Caller::Claims(&claims),
        target: "units",
        tool: "convert",
        arguments: &ok,
        session_id: Some("mcp-1"),
    };
    assert_eq!(gateway.call(call).await, Verdict::Allow);
}

#[tokio::test]
async fn decision_lines_stay_small_whatever_the_call_names() {
    let s = setup(None).await;
    let bearer = token(&s.ring, &["staff"], "s-8");
    let long_tool = "f".repeat(100_000);
    let long_target = "t".repeat(100_000);
    let mut many = Map::new();
    for i in 0..10_000 {
        many.insert(format!("{i}{}", "k".repeat(1_000)), json!(i));
    }
    let ok = args(json!({"value": 3.0, "from": "km", "to": "m"}));
    let calls = [
        ("units", long_tool.as_str(), &ok),
        (&long_target, "convert", &ok),
        ("units", "convert", &many),
    ];
    for (target, tool, arguments) in calls {
        let call =
            Call { caller: Caller::Bearer(&bearer), target, tool, arguments, session_id: None };
        assert!(matches!(s.gateway.call(call).await, Verdict::Deny(_)));
        let line = serde_json::to_string(&last(&s)).unwrap();
        assert!(line.len() < 4_096, "a decision line of {} bytes", line.len());
    }
    let listed = [Listed { target: &long_target, tool: &long_tool }];
    assert_eq!(s.gateway.list(Caller::Bearer(&bearer), &listed).await, [false]);
    let line = serde_json::to_string(&last(&s)).unwrap();
    assert!(line.len() < 4_096, "a decision line of {} bytes", line.len());
}

fn issued(ring: &KeyRing, issuer: &str, now: i64, ttl_seconds: i64, context: &str) -> String {
    ring.issue(&TokenRequest {
        issuer,
        audience: AUDIENCE,
        user_id: Some("u-7"),
        agent_id: "budget-bot",
        session_id: "s-9",
        context_json: context,
        now,
        ttl_seconds,
    })
    .unwrap()
}

/// A JWT of `header` and `payload`, signed with `signature` (base64url) or not at all.
fn unsigned(header: &Value, payload: &Value, signature: &str) -> String {
    use base64::Engine;
    let part = |v: &Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(serde_json::to_vec(v).unwrap())
    };
    format!("{}.{}.{signature}", part(header), part(payload))
}

#[tokio::test]
async fn tokens_that_are_not_the_registrys_are_denied_with_or_without_a_mapping() {
    let staff = json!({"user": {"userId": "u-7", "roles": ["staff"]}}).to_string();
    let other = KeyRing::generate(NOW_S).unwrap();
    for mapping in [None, Some(r#"{"user.userId": "sub", "user.roles": "groups"}"#)] {
        let s = setup(mapping).await;
        let claims = json!({"iss": ISSUER, "aud": AUDIENCE, "sub": "u-7", "groups": ["staff"],
            "act": {"sub": "budget-bot"}, "sid": "s-9", "ctx": {"user": {"roles": ["staff"]}},
            "exp": NOW_S + 600, "iat": NOW_S});
        let valid = issued(&s.ring, ISSUER, NOW_S, 600, &staff);
        let (head, rest) = valid.split_once('.').unwrap();
        let (_, signature) = rest.split_once('.').unwrap();
        let bad = [
            issued(&s.ring, ISSUER, NOW_S - 7_200, 600, &staff),
            issued(&other, ISSUER, NOW_S, 600, &staff),
            unsigned(&json!({"alg": "none", "typ": "JWT"}), &claims, ""),
            unsigned(&json!({"alg": "HS256", "typ": "JWT"}), &claims, "c2lnbmF0dXJl"),
            format!(
                "{head}.{}.{signature}",
                unsigned(&json!({}), &claims, "").split('.').nth(1).unwrap()
            ),
            format!("{valid}{}", "A".repeat(9_000)),
            "Bearer".to_owned(),
            "Bearer ".to_owned(),
            "Basic dXNlcjpwYXNz".to_owned(),
            "\u{0}\u{fffd}".to_owned(),
            "a.b".to_owned(),
            "...".to_owned(),
        ];
        for (i, token) in bad.iter().enumerate() {
            let verdict = call(
                &s,
                Caller::Bearer(token),
                "convert",
                json!({"value": 3.0, "from": "km", "to": "m"}),
            )
            .await;
            assert_eq!(kind(&verdict), Some(DenialKind::Denied), "case {i} ({mapping:?})");
            let listed = [Listed { target: "units", tool: "convert" }];
            assert_eq!(s.gateway.list(Caller::Bearer(token), &listed).await, [false], "case {i}");
        }
    }
}

#[tokio::test]
async fn numbers_at_the_extremes_meet_the_rule_as_numbers() {
    let s = setup(None).await;
    for (i, (value, denied)) in [
        ("18446744073709551615", true),
        ("9223372036854775807", true),
        ("9223372036854775808", true),
        ("-9223372036854775808", true),
        ("1e308", true),
        ("-1e308", true),
        ("-0.0", false),
        ("0", false),
        ("1000000000", false),
    ]
    .into_iter()
    .enumerate()
    {
        // a session of its own: the budget is not what decides
        let bearer = token(&s.ring, &["staff"], &format!("s-num-{i}"));
        let arguments: Value =
            serde_json::from_str(&format!(r#"{{"value":{value},"from":"km","to":"m"}}"#)).unwrap();
        let verdict = call(&s, Caller::Bearer(&bearer), "convert", arguments).await;
        let rule = match &verdict {
            Verdict::Deny(d) => d.rule_id.as_deref(),
            Verdict::Allow => None,
        };
        assert_eq!(rule == Some("no-huge-values"), denied, "{value}: {verdict:?}");
    }
}

#[tokio::test]
async fn a_token_counts_in_its_own_session_whatever_the_session_header_says() {
    let s = setup(None).await;
    let spent = token(&s.ring, &["staff"], "s-spent");
    let ok = args(json!({"value": 3.0, "from": "km", "to": "m"}));
    for header in ["s-fresh-1", "s-fresh-2", "s-fresh-3"] {
        let call = Call {
            caller: Caller::Bearer(&spent),
            target: "units",
            tool: "convert",
            arguments: &ok,
            session_id: Some(header),
        };
        let verdict = s.gateway.call(call).await;
        if header == "s-fresh-3" {
            assert_eq!(kind(&verdict), Some(DenialKind::Exhausted), "a header reset the budget");
        } else {
            assert_eq!(verdict, Verdict::Allow);
        }
        assert_eq!(last(&s)["sessionId"], "s-spent");
    }
}
