#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Session budgets that no argument value and no id can get around (SPEC section 19),
//! through `POST /tools/{id}/authorize` with a reader's token on a real server and store
//! (SQLite, or DynamoDB with `REGISTRY_TEST_STORE=dynamodb`): running totals stay in
//! range and never reset a session, a counter record that does not decode refuses the
//! call, ids are bounded, and the budget rules docs/call-policy.md documents refuse a
//! refill by a negative amount.

mod common;

use common::{Server, agent_json, start};
use registry_store::Counter;
use reqwest::Method;
use serde_json::{Value, json};

const TOOL: &str = "refunds@1.0.0";

fn refund_tool(call_rules: &Value) -> Value {
    json!({
        "toolId": TOOL,
        "executionType": "lambda",
        "name": "refunds",
        "displayName": "Refunds",
        "description": "Refunds a customer.",
        "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:refund",
        "supportedAgentFrameworks": ["bedrock"],
        "functionSchema": [{
            "name": "issue_refund",
            "description": "Refund an amount to a customer.",
            "parameters": {
                "amount": {"type": "number", "description": "Amount", "required": true}
            }
        }],
        "callRules": call_rules
    })
}

/// A server with the refund tool under `rules` and agent `support` using it.
async fn setup(rules: &Value, limits: Value) -> Server {
    let s = start().await;
    s.create_tool(&refund_tool(rules)).await;
    let mut agent = agent_json("support", &[TOOL]);
    agent["limits"] = limits;
    s.create_agent(&agent).await;
    s
}

async fn authorize(s: &Server, body: &Value) -> common::Reply {
    let path = format!("/tools/{TOOL}/authorize");
    s.send(s.req(Method::POST, &path, &s.reader).json(body)).await
}

fn refund_in(session: &str, amount: Value) -> Value {
    json!({
        "context": {"user": {"userId": "carol"}},
        "agentId": "support",
        "sessionId": session,
        "call": {"function": "issue_refund", "arguments": {"amount": amount}}
    })
}

/// Authorizes a refund of `amount` in `session`: the answer (a 200).
async fn refund(s: &Server, session: &str, amount: Value) -> Value {
    let reply = authorize(s, &refund_in(session, amount)).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply.body
}

/// The running-total rule without a companion: negative amounts pass the rules, so only
/// the totals' range stands between them and the session's counts.
fn total_rule_alone() -> Value {
    json!([
        {"id": "refund-budget", "effect": "deny",
         "condition": "session.total['issue_refund.amount'] + call.arguments.amount > 500.0"},
        {"id": "allow", "effect": "allow"}
    ])
}

#[tokio::test(flavor = "multi_thread")]
async fn a_total_out_of_range_never_resets_the_session() {
    let s = setup(
        &total_rule_alone(),
        json!({"maxToolCalls": 3, "maxCallsPerFunction": {"issue_refund": 3}}),
    )
    .await;
    let mut allowed = 0;
    for (n, amount) in [json!(-1e308), json!(-1e308), json!(-1e308), json!(-1e308)]
        .into_iter()
        .chain(std::iter::repeat_n(json!(1.0), 8))
        .enumerate()
    {
        let answer = refund(&s, "s-overflow", amount).await;
        if answer["effect"] == "allow" {
            allowed += 1;
            assert_eq!(answer["session"]["calls"], allowed, "call {n}: {answer}");
        } else if n < 4 {
            assert_eq!(
                (answer["stage"].as_str(), answer["limit"].as_str()),
                (Some("limit"), Some("runningTotal")),
                "call {n}: {answer}"
            );
        }
    }
    assert_eq!(allowed, 3, "maxToolCalls holds whatever the amounts");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_undecodable_session_refuses_the_call_and_is_left_alone() {
    let s = setup(&total_rule_alone(), json!({"maxToolCalls": 3})).await;
    // what the old code wrote for a total of -inf: JSON has no infinity, so null
    let key = registry_store::session_key("support", "s-corrupt");
    let stored = Counter {
        key: key.clone(),
        version: 1,
        value: json!({"calls": 3, "callsOf": {"issue_refund": 3},
                      "totals": {"issue_refund.amount": null}}),
        expires_at: chrono::Utc::now().timestamp() + 600,
    };
    let store = s.registry.catalog.store();
    store.put_counters(std::slice::from_ref(&stored), 0).await.unwrap();
    let reply = authorize(&s, &refund_in("s-corrupt", json!(1.0))).await;
    assert_eq!(reply.status, 500, "refused, never a fresh session: {}", reply.text);
    assert_eq!(reply.content_type(), "application/problem+json", "{}", reply.text);
    let now = chrono::Utc::now().timestamp();
    let read = store.get_counters(std::slice::from_ref(&key), now).await.unwrap();
    assert_eq!(read, vec![Some(stored)], "the record is left as it was");
}

#[tokio::test(flavor = "multi_thread")]
async fn session_and_agent_ids_are_bounded_and_belong_to_the_tool() {
    let s = setup(&total_rule_alone(), json!({"maxToolCalls": 3})).await;
    let huge = "s".repeat(900_000);
    let long = "s".repeat(101);
    for bad in ["", "a", "a\nb", "a\u{0}b", "a b", "a/b", long.as_str(), huge.as_str()] {
        let reply = authorize(&s, &refund_in(bad, json!(1.0))).await;
        reply.assert_invalid_at("/sessionId");
        assert!(reply.text.len() < 2_000, "the id is not echoed: {} bytes", reply.text.len());
    }
    let ok = refund(&s, &"s".repeat(100), json!(1.0)).await;
    assert_eq!(ok["effect"], "allow", "100 characters is Bedrock's longest: {ok}");
    let long_agent = "a".repeat(129);
    for bad in ["", " support", "support\n", long_agent.as_str()] {
        let mut body = refund_in("s-1", json!(1.0));
        body["agentId"] = json!(bad);
        authorize(&s, &body).await.assert_invalid_at("/agentId");
    }
    // an agent that does not use the tool has no session with it
    s.create_agent(&agent_json("other", &[])).await;
    let mut body = refund_in("s-other", json!(1.0));
    body["agentId"] = json!("other");
    authorize(&s, &body).await.assert_invalid_at("/agentId");
    // a range reference is using it
    s.create_agent(&agent_json("ranged", &["refunds@^1"])).await;
    body["agentId"] = json!("ranged");
    assert_eq!(authorize(&s, &body).await.body["effect"], "allow");
    // nothing was counted for any refused id
    let keys: Vec<String> = ["", "a", "a\nb", long.as_str(), huge.as_str()]
        .iter()
        .map(|id| registry_store::session_key("support", id))
        .chain([registry_store::session_key("other", "s-other")])
        .collect();
    let now = chrono::Utc::now().timestamp();
    let read = s.registry.catalog.store().get_counters(&keys, now).await.unwrap();
    assert!(read.iter().all(Option::is_none), "{read:?}");
}

/// The rule set in docs/call-policy.md's ```json block that holds `refund-budget`.
fn documented_budget() -> Value {
    let docs = include_str!("../../../docs/call-policy.md");
    let block = docs
        .split("```json")
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .find(|block| block.contains("refund-budget"))
        .expect("docs/call-policy.md documents the refund budget in a json block");
    serde_json::from_str(block).expect("the documented rules are JSON")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_documented_budget_refuses_a_refill_by_a_negative_amount() {
    let s = setup(&documented_budget(), json!({"maxToolCalls": 50})).await;
    let effect = |answer: &Value| {
        (answer["effect"].as_str().map(str::to_owned), answer["ruleId"].as_str().map(str::to_owned))
    };
    let first = refund(&s, "s-refill", json!(400)).await;
    assert_eq!(effect(&first), (Some("allow".into()), Some("allow".into())), "{first}");
    let second = refund(&s, "s-refill", json!(400)).await;
    assert_eq!(effect(&second).1.as_deref(), Some("refund-budget"), "{second}");
    for refill in [json!(-10_000), json!(-0.0), json!(0), json!(-1e308)] {
        let answer = refund(&s, "s-refill", refill.clone()).await;
        assert_eq!(
            effect(&answer),
            (Some("deny".into()), Some("refund-positive".into())),
            "{refill}: {answer}"
        );
    }
    for n in 0..5 {
        let answer = refund(&s, "s-refill", json!(400)).await;
        assert_eq!(effect(&answer).0.as_deref(), Some("deny"), "400 number {n}: {answer}");
    }
    let last = refund(&s, "s-refill", json!(100)).await;
    assert_eq!(last["effect"], "allow", "what is left of the 500 still is: {last}");
    assert_eq!(last["session"]["totals"]["issue_refund.amount"], 500.0, "{last}");
}
