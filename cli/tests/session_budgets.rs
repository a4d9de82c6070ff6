#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Session budgets from outside (SPEC section 19), on the built binary: an agent's
//! `limits` and call rules over `session.*`, counted by `authorize` with a session.

mod common;

use common::{Serve, serve};
use reqwest::Method;
use serde_json::{Value, json};

fn refund_tool(call_rules: Value) -> Value {
    json!({
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
                "amount": {"type": "number", "description": "Amount", "required": true},
                "currency": {"type": "string", "description": "ISO currency", "required": true}
            }
        }],
        "callRules": call_rules
    })
}

fn agent(limits: Value) -> Value {
    json!({
        "basePrompt": "You help customers with refunds, within the budget of each conversation.",
        "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
        "toolIds": ["refunds@1.0.0"],
        "limits": limits
    })
}

async fn setup(s: &Serve, limits: Value) {
    // the budget as docs/call-policy.md documents it: a total sums signed amounts, so
    // the first rule keeps a negative amount from refilling it
    let budget = json!([
        {"id": "refund-positive", "effect": "deny",
         "condition": "!(call.arguments.amount > 0.0)"},
        {"id": "refund-budget", "effect": "deny",
         "condition": "session.total['issue_refund.amount'] + call.arguments.amount > 500.0"},
        {"effect": "allow"}
    ]);
    let (status, body) = s
        .call(Method::PUT, "/tools/refunds@1.0.0", Some(&s.token), Some(refund_tool(budget)))
        .await;
    assert_eq!(status, 201, "{body}");
    let (status, body) =
        s.call(Method::PUT, "/agents/support", Some(&s.token), Some(agent(limits))).await;
    assert_eq!(status, 201, "{body}");
}

async fn refund(s: &Serve, session: &str, amount: f64) -> Value {
    let body = json!({
        "context": {"user": {"userId": "carol"}},
        "agentId": "support",
        "sessionId": session,
        "call": {"function": "issue_refund", "arguments": {"amount": amount, "currency": "USD"}}
    });
    let (status, answer) =
        s.call(Method::POST, "/tools/refunds@1.0.0/authorize", Some(&s.token), Some(body)).await;
    assert_eq!(status, 200, "{answer}");
    answer
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_gets_its_calls_and_no_more() {
    let s = serve(None, &["--no-example"]);
    s.healthy().await;
    setup(&s, json!({"maxToolCalls": 3})).await;
    for n in 1..=3 {
        let answer = refund(&s, "session-a", 1.0).await;
        assert_eq!(answer["effect"], "allow", "call {n}: {answer}");
        assert_eq!(answer["session"]["calls"], n, "{answer}");
    }
    for n in 4..=5 {
        let answer = refund(&s, "session-a", 1.0).await;
        assert_eq!(
            (answer["effect"].as_str(), answer["stage"].as_str()),
            (Some("deny"), Some("limit")),
            "call {n}: {answer}"
        );
        assert_eq!(answer["limit"], "maxToolCalls", "{answer}");
    }
    assert_eq!(
        refund(&s, "session-b", 1.0).await["effect"],
        "allow",
        "a new session starts from zero"
    );
    let line = s.wait_for_line("decisionId", |l| l["limit"] == "maxToolCalls").await;
    assert_eq!(
        (line["sessionId"].as_str(), line["effect"].as_str()),
        (Some("session-a"), Some("deny"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_running_total_refuses_the_refund_that_would_pass_it() {
    let s = serve(None, &["--no-example"]);
    s.healthy().await;
    setup(&s, json!({"maxToolCalls": 20})).await;
    assert_eq!(refund(&s, "s-1", 200.0).await["effect"], "allow");
    assert_eq!(refund(&s, "s-1", 200.0).await["effect"], "allow");
    let third = refund(&s, "s-1", 200.0).await;
    assert_eq!(
        (third["effect"].as_str(), third["ruleId"].as_str()),
        (Some("deny"), Some("refund-budget")),
        "{third}"
    );
    // the denied call left the total at 400: 50 more still fits
    let fourth = refund(&s, "s-1", 50.0).await;
    assert_eq!(fourth["effect"], "allow", "{fourth}");
    assert_eq!(fourth["session"]["totals"]["issue_refund.amount"], 450.0, "{fourth}");
    // without a session, nothing is counted and session rules see an empty session
    let body = json!({"context": {}, "call": {"function": "issue_refund", "arguments": {"amount": 400.0, "currency": "USD"}}});
    let (_, sessionless) =
        s.call(Method::POST, "/tools/refunds@1.0.0/authorize", Some(&s.token), Some(body)).await;
    assert_eq!(sessionless["effect"], "allow", "{sessionless}");
    assert!(sessionless.get("session").is_none(), "{sessionless}");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_budgets_are_refused_with_pointers_and_nothing_is_stored() {
    let s = serve(None, &["--no-example"]);
    s.healthy().await;
    let (status, _) = s
        .call(Method::PUT, "/tools/refunds@1.0.0", Some(&s.token), Some(refund_tool(json!([]))))
        .await;
    assert_eq!(status, 201);
    let limits = json!({
        "maxToolCalls": 0,
        "maxWallClockSeconds": -5,
        "maxCallsPerFunction": {"lookup": 2},
        "maxCostUsd": 10
    });
    let (status, problem) =
        s.call(Method::PUT, "/agents/support", Some(&s.token), Some(agent(limits))).await;
    assert_eq!(status, 400, "{problem}");
    let paths: Vec<&str> =
        problem["errors"].as_array().unwrap().iter().map(|e| e["path"].as_str().unwrap()).collect();
    for path in [
        "/limits/maxToolCalls",
        "/limits/maxWallClockSeconds",
        "/limits/maxCostUsd",
        "/limits/maxCallsPerFunction/lookup",
    ] {
        assert!(paths.contains(&path), "{path} missing: {problem}");
    }
    let (status, _) = s.call(Method::GET, "/agents/support", Some(&s.token), None).await;
    assert_eq!(status, 404, "nothing stored");
    // an unknown function alone
    let limits = json!({"maxCallsPerFunction": {"lookup": 2}});
    let (status, problem) =
        s.call(Method::PUT, "/agents/support", Some(&s.token), Some(agent(limits))).await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["errors"][0]["path"], "/limits/maxCallsPerFunction/lookup", "{problem}");
    assert!(
        problem["errors"][0]["message"].as_str().unwrap().contains("issue_refund"),
        "{problem}"
    );
    // a running total over a string argument
    let rules =
        json!([{"effect": "deny", "condition": "session.total['issue_refund.currency'] > 1.0"}]);
    let (status, problem) =
        s.call(Method::PUT, "/tools/refunds@1.0.0", Some(&s.token), Some(refund_tool(rules))).await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["errors"][0]["path"], "/callRules/0/condition", "{problem}");
    let (_, stored) = s.call(Method::GET, "/tools/refunds@1.0.0", Some(&s.token), None).await;
    assert_eq!(stored["version"], 1, "nothing stored: {stored}");
}
