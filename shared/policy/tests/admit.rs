//! The admission of calls against session budgets and rates (SPEC section 19) on each
//! backend's counters, SQLite and the local DynamoDB-API server: exactly one winner for
//! the last unit of a budget, no argument values past it, undecodable counters refused,
//! rate windows, denied calls counting nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::Arc;

use registry_core::session::SessionState;
use registry_core::{AgentLimits, Decision, Effect, RateKey, RateLimit, ReasonCode};
use registry_policy::admit::{Admission, Known, Verdict, admit};
use registry_store::{Counter, Store, StoreError};
use registry_store_sqlite::SqliteStore;
use serde_json::{Map, json};

const NOW: i64 = 1_800_000_000;

fn counter(key: &str, version: u64, value: serde_json::Value, expires_at: i64) -> Counter {
    Counter { key: key.into(), version, value, expires_at }
}

fn allow() -> Decision {
    Decision::new(Effect::Allow, ReasonCode::NoRules)
}

/// Each check against a SQLite store in a fresh temp dir and against a fresh table of
/// the local DynamoDB-API server (`registry_store_dynamodb::local`).
macro_rules! on_each_backend {
    ($($check:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $check() {
                    let dir = tempfile::tempdir().expect("temp dir");
                    let path = dir.path().join("registry.db");
                    let store = super::SqliteStore::open(path).expect("open");
                    super::$check(std::sync::Arc::new(store)).await;
                }
            )*
        }
        mod dynamodb {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $check() {
                    let store = registry_store_dynamodb::local::fresh_store("admit").await;
                    super::$check(std::sync::Arc::new(store.expect("a local table"))).await;
                }
            )*
        }
    };
}

on_each_backend!(
    the_last_unit_of_a_budget_has_one_winner,
    no_arguments_admit_more_calls_than_the_budget,
    an_undecodable_counter_refuses_the_call,
    rates_refuse_within_the_window_and_reset,
    a_denied_call_counts_nothing,
);

/// 20 concurrent calls on the last unit of a session's budget, each with another
/// amount for the running total (negative, -0.0, huge, out of range): exactly one is
/// admitted, and the session counts exactly the admitted calls.
async fn the_last_unit_of_a_budget_has_one_winner(store: Arc<dyn Store>) {
    let limits = AgentLimits { max_tool_calls: Some(5), ..AgentLimits::default() };
    let key = registry_store::session_key("agent", "s-last");
    let totals = Arc::new(["f.amount".to_string()]);
    let mut state = SessionState::default();
    for t in 0..4 {
        state = state.admit("f", &Map::new(), &[], NOW * 1_000 + t).expect("admit");
    }
    let seeded = counter(&key, 1, serde_json::to_value(&state).expect("json"), NOW + 600);
    store.put_counters(&[seeded], NOW).await.expect("seed");
    let barrier = Arc::new(tokio::sync::Barrier::new(20));
    let mut tasks = Vec::new();
    for i in 0..20 {
        let (store, barrier, key, limits, totals) = (
            Arc::clone(&store),
            Arc::clone(&barrier),
            key.clone(),
            limits.clone(),
            Arc::clone(&totals),
        );
        tasks.push(tokio::spawn(async move {
            let amount = AMOUNTS[i % AMOUNTS.len()];
            let arguments = json!({ "amount": amount }).as_object().cloned().unwrap_or_default();
            let admission = counted(&key, &limits, &arguments, totals.as_slice());
            barrier.wait().await;
            // each call as a process of its own: nothing known
            let known = Known::default();
            admit(store.as_ref(), &known, &admission, NOW * 1_000 + 10, |_| allow(), |_| true).await
        }));
    }
    let mut admitted = 0;
    for task in tasks {
        match task.await.expect("task") {
            Ok(Verdict::Admitted { .. }) => admitted += 1,
            Ok(Verdict::Limited(hit)) => {
                assert!(["maxToolCalls", "runningTotal"].contains(&hit.limit), "{hit:?}");
            }
            Ok(other) => panic!("unexpected {other:?}"),
            // a call that lost every race is refused by its caller: never admitted
            Err(StoreError::VersionMismatch { .. }) => {}
            Err(e) => panic!("{e:?}"),
        }
    }
    assert_eq!(admitted, 1, "exactly one call takes the last unit");
    let read = store.get_counters(std::slice::from_ref(&key), NOW).await.expect("get");
    let stored: SessionState =
        serde_json::from_value(read[0].as_ref().expect("kept").value.clone()).expect("state");
    assert_eq!(stored.calls, 5, "the counter equals the admitted calls");
    assert!(stored.totals_in_range(), "{stored:?}");
}

/// A call of `f` with `arguments` in the session `key` under `limits`, feeding `totals`.
fn counted<'a>(
    key: &'a str,
    limits: &'a AgentLimits,
    arguments: &'a Map<String, serde_json::Value>,
    totals: &'a [String],
) -> Admission<'a> {
    Admission {
        session: Some(key),
        limits: Some(limits),
        rate: None,
        function: "f",
        arguments,
        totals,
        session_ttl_seconds: 600,
    }
}

/// Amounts to feed a running total: ordinary, negative, signed zero, the range's edges,
/// and values whose sums would overflow to infinity or NaN.
const AMOUNTS: [f64; 12] = [
    400.0,
    -1e308,
    -1e308,
    1e308,
    -0.0,
    f64::MAX,
    -f64::MAX,
    9_007_199_254_740_992.0,
    -9_007_199_254_740_992.0,
    9_007_199_254_740_994.0,
    5e-324,
    -10_000.0,
];

/// No sequence of argument values admits more calls than `maxToolCalls`: sums that
/// would be infinite, NaN or beyond the totals' range are refused and never reset the
/// session, whether the process remembers what it wrote or reads the store.
async fn no_arguments_admit_more_calls_than_the_budget(store: Arc<dyn Store>) {
    let limits = AgentLimits { max_tool_calls: Some(5), ..AgentLimits::default() };
    let totals = ["f.amount".to_string()];
    // a fixed permutation per round: every order of neighbours is tried somewhere
    for (round, step) in [1_usize, 5, 7, 11].into_iter().enumerate() {
        let key = registry_store::session_key("agent", &format!("s-args-{round}"));
        let (warm, mut admitted) = (Known::default(), 0_u64);
        let mut extra = vec![json!("1e400"), json!(null), json!(true), json!({"n": 1})];
        for i in 0..(3 * AMOUNTS.len() + extra.len()) {
            let odd = if i % 4 == 3 { extra.pop() } else { None };
            let amount = odd.unwrap_or_else(|| json!(AMOUNTS[(i * step) % AMOUNTS.len()]));
            let arguments = json!({ "amount": amount }).as_object().cloned().unwrap_or_default();
            let admission = counted(&key, &limits, &arguments, &totals);
            let cold = Known::default();
            let known = if i % 2 == 0 { &warm } else { &cold };
            let at = NOW * 1_000 + i64::try_from(i).expect("small");
            match admit(store.as_ref(), known, &admission, at, |_| allow(), |_| true).await {
                Ok(Verdict::Admitted { session, .. }) => {
                    admitted += 1;
                    let session = session.expect("a session");
                    assert_eq!(session.calls, admitted, "round {round}, call {i}");
                    assert!(session.totals_in_range(), "round {round}, call {i}: {session:?}");
                }
                Ok(Verdict::Limited(hit)) => {
                    assert!(["maxToolCalls", "runningTotal"].contains(&hit.limit), "{hit:?}");
                }
                other => panic!("round {round}, call {i}: {other:?}"),
            }
            assert!(admitted <= 5, "round {round}: call {i} admitted past maxToolCalls");
        }
        assert_eq!(admitted, 5, "round {round}: the budget is spent, not skipped");
        let read = store.get_counters(std::slice::from_ref(&key), NOW).await.expect("get");
        let stored: SessionState =
            serde_json::from_value(read[0].as_ref().expect("kept").value.clone()).expect("state");
        assert_eq!(stored.calls, 5, "round {round}");
    }
}

/// A counter record that does not decode (a null total, a wrong type) refuses the call
/// with an error: it is never read as a fresh session, and it is left as it was.
async fn an_undecodable_counter_refuses_the_call(store: Arc<dyn Store>) {
    let limits = AgentLimits { max_tool_calls: Some(5), ..AgentLimits::default() };
    let totals = ["f.amount".to_string()];
    let arguments = json!({"amount": 1.0}).as_object().cloned().unwrap_or_default();
    let rate =
        RateLimit { calls: 3, per_seconds: 60, key: RateKey::Principal, unknown: BTreeMap::new() };
    let bad = [
        ("session", json!({"calls": 5, "totals": {"f.amount": null}})),
        ("session", json!({"calls": "many"})),
        ("session", json!(null)),
        ("rate", json!({"startMs": "now", "count": 3})),
    ];
    for (i, (which, value)) in bad.into_iter().enumerate() {
        let session = registry_store::session_key("agent", &format!("s-bad-{i}"));
        let window = registry_store::rate_key("t@1.0.0", "principal", &format!("u-{i}"));
        let key = if which == "session" { &session } else { &window };
        store.put_counters(&[counter(key, 1, value.clone(), NOW + 600)], NOW).await.expect("seed");
        let admission = Admission {
            rate: Some((&window, &rate)),
            ..counted(&session, &limits, &arguments, &totals)
        };
        let known = Known::default();
        let verdict =
            admit(store.as_ref(), &known, &admission, NOW * 1_000, |_| allow(), |_| true).await;
        assert!(matches!(verdict, Err(StoreError::Backend(_))), "{which} {value}: {verdict:?}");
        let read = store.get_counters(std::slice::from_ref(key), NOW).await.expect("get");
        assert_eq!(read[0].as_ref().map(|c| (c.version, c.value.clone())), Some((1, value)));
    }
}

/// A rate of 3 per 60 s per principal: the 4th call in the window is refused and
/// nothing counted; the next window admits again (an injected clock, no sleep).
async fn rates_refuse_within_the_window_and_reset(store: Arc<dyn Store>) {
    let rate =
        RateLimit { calls: 3, per_seconds: 60, key: RateKey::Principal, unknown: BTreeMap::new() };
    let key = registry_store::rate_key("lookup@1.0.0", "principal", "alice");
    let arguments = Map::new();
    let admission = Admission {
        session: None,
        limits: None,
        rate: Some((&key, &rate)),
        function: "lookup",
        arguments: &arguments,
        totals: &[],
        session_ttl_seconds: 600,
    };
    let start = NOW * 1_000 - (NOW * 1_000).rem_euclid(60_000);
    let known = Known::default();
    let at = |t: i64| admit(store.as_ref(), &known, &admission, start + t, |_| allow(), |_| true);
    for t in [0, 1_000, 2_000] {
        let verdict = at(t).await.expect("admit");
        assert!(matches!(verdict, Verdict::Admitted { .. }), "{verdict:?}");
    }
    let fourth = at(3_000).await.expect("admit");
    assert!(matches!(fourth, Verdict::Limited(ref hit) if hit.limit == "rateLimit"), "{fourth:?}");
    let next = at(60_000).await.expect("admit");
    assert!(matches!(next, Verdict::Admitted { .. }), "a new window: {next:?}");
}

/// A call the rules deny changes no counter.
async fn a_denied_call_counts_nothing(store: Arc<dyn Store>) {
    let key = registry_store::session_key("agent", "s-denied");
    let arguments = json!({"amount": 200.0}).as_object().cloned().unwrap_or_default();
    let totals = ["refund.amount".to_string()];
    let admission = Admission {
        session: Some(&key),
        limits: None,
        rate: None,
        function: "refund",
        arguments: &arguments,
        totals: &totals,
        session_ttl_seconds: 600,
    };
    let budget = |view: registry_core::SessionView<'_>| {
        let spent = view.totals.and_then(|t| t.get("refund.amount")).copied().unwrap_or(0.0);
        if spent + 200.0 > 500.0 { Decision { effect: Effect::Deny, ..allow() } } else { allow() }
    };
    // one process remembering what it wrote, another reading the store each time
    let (warm, cold) = (Known::default(), Known::default());
    let first = admit(store.as_ref(), &warm, &admission, NOW * 1_000, budget, |_| true).await;
    assert!(matches!(first, Ok(Verdict::Admitted { .. })), "{first:?}");
    let second = admit(store.as_ref(), &cold, &admission, NOW * 1_000, budget, |_| true).await;
    assert!(matches!(second, Ok(Verdict::Admitted { .. })), "{second:?}");
    // the warm one's memory is stale: its write loses, it reads and decides again
    let third = admit(store.as_ref(), &warm, &admission, NOW * 1_000, budget, |_| true)
        .await
        .expect("admit");
    assert!(matches!(third, Verdict::Denied { .. }), "{third:?}");
    let read = store.get_counters(std::slice::from_ref(&key), NOW).await.expect("get");
    let stored: SessionState =
        serde_json::from_value(read[0].as_ref().expect("kept").value.clone()).expect("state");
    assert_eq!((stored.calls, stored.totals["refund.amount"]), (2, 400.0));
}
