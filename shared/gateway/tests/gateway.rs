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
    ];
    let staff = token(&s.ring, &["staff"], "s-4");
    assert_eq!(s.gateway.list(Caller::Bearer(&staff), &listed).await, [true, true, false, false]);
    let guest = token(&s.ring, &["guest"], "s-5");
    assert_eq!(s.gateway.list(Caller::Bearer(&guest), &listed).await, [true, false, false, false]);
    assert_eq!(s.gateway.list(Caller::Anonymous, &listed).await, [false; 4]);
    assert_eq!(s.lines.lock().unwrap().len(), 12, "one line per listed tool");
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
