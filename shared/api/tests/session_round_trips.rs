#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Session budgets cost one store round trip per admitted call once warm, and none
//! for a call the rules refuse whatever the session holds (SPEC section 19): counted
//! on a real SQLite store through the counting `Spy`.

mod common;

use std::sync::atomic::Ordering;

use common::spy::Spy;
use common::{agent_json, tool_json};
use registry_api::Registry;
use registry_api::service::AuthorizeRequest;
use registry_core::Definition;
use registry_store::{Expected, Store};
use serde_json::json;

#[tokio::test]
async fn an_admitted_call_costs_one_round_trip_and_a_refused_one_none() {
    let dir = tempfile::tempdir().unwrap();
    let store = Spy::open(dir.path(), false);
    let mut tool = tool_json("weather@1.0.0");
    tool["callRules"] = json!([
        {"id": "no-atlantis", "effect": "deny", "condition": "call.arguments.city == 'Atlantis'"},
        {"id": "ten-a-session", "effect": "deny",
         "condition": "session.callsOf['get_weather'] >= 10"},
        {"id": "allow", "effect": "allow"}
    ]);
    let mut agent = agent_json("forecaster", &["weather@1.0.0"]);
    agent["limits"] = json!({"maxToolCalls": 20});
    for definition in [
        Definition::Tool(serde_json::from_value(tool).unwrap()),
        Definition::Agent(serde_json::from_value(agent).unwrap()),
    ] {
        store.inner.put(definition, Expected::Absent).await.unwrap();
    }
    let registry = Registry::new(store.clone());
    let call = |city: &str| -> AuthorizeRequest {
        serde_json::from_value(json!({
            "context": {"user": {"userId": "u-1"}},
            "call": {"function": "get_weather", "arguments": {"city": city}},
            "agentId": "forecaster", "sessionId": "s-1"
        }))
        .unwrap()
    };
    let trips = || {
        (store.counter_reads.load(Ordering::SeqCst), store.counter_writes.load(Ordering::SeqCst))
    };

    let first = registry.calls.authorize("weather@1.0.0", &call("Paris"), false).await.unwrap();
    assert_eq!(first.effect, registry_access::Effect::Allow);
    assert_eq!(trips(), (1, 1), "a cold session: one read, one conditional write");
    for n in 2..=4 {
        let next = registry.calls.authorize("weather@1.0.0", &call("Oslo"), false).await.unwrap();
        assert_eq!(next.effect, registry_access::Effect::Allow);
        assert_eq!(trips(), (1, n), "warm: the write alone, on the version it wrote last");
    }
    let refused =
        registry.calls.authorize("weather@1.0.0", &call("Atlantis"), false).await.unwrap();
    assert_eq!(refused.rule_id.as_deref(), Some("no-atlantis"));
    assert_eq!(trips(), (1, 4), "refused whatever the session holds: no round trip");
}
