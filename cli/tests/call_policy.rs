#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Call-time policy from outside (SPEC sections 15 and 16), on the built binary: rule
//! ids and log-only rules, call rules checked against the tool's schema on write,
//! `authorize`, the signed principal context of a resolution, the opt-in trace and the
//! decision log on standard output.

mod common;

use common::{Serve, serve};
use registry_token::{KeyRing, Verifier};
use reqwest::Method;
use serde_json::{Value, json};

/// The `refund` tool of the issue: enforce `cap-refunds`, log-only `usd-only`, then allow.
fn refund(call_rules: Value) -> Value {
    json!({
        "executionType": "lambda",
        "name": "refund",
        "displayName": "Refunds",
        "description": "Refunds a customer.",
        "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:refund",
        "supportedAgentFrameworks": ["bedrock"],
        "functionSchema": [{
            "name": "refund",
            "description": "Refund an amount to a customer.",
            "parameters": {
                "amount": {"type": "number", "description": "Amount", "required": true},
                "currency": {"type": "string", "description": "ISO currency", "required": true},
                "customerId": {"type": "string", "description": "Customer", "required": true}
            }
        }],
        "callRules": call_rules
    })
}

fn refund_rules() -> Value {
    json!([
        {"id": "cap-refunds", "effect": "deny",
         "condition": "call.arguments.amount > 100.0 && !('refund-admin' in user.roles)"},
        {"id": "usd-only", "effect": "deny", "mode": "log-only",
         "condition": "call.arguments.currency != 'USD'"},
        {"effect": "allow"}
    ])
}

async fn put_refund(s: &Serve, rules: Value) -> (u16, Value) {
    s.call(Method::PUT, "/tools/refund@1.0.0", Some(&s.token), Some(refund(rules))).await
}

async fn authorize(s: &Serve, roles: &[&str], amount: f64, currency: &str) -> Value {
    let body = json!({
        "context": {"user": {"userId": "alice", "roles": roles}},
        "call": {"function": "refund",
                 "arguments": {"amount": amount, "currency": currency, "customerId": "c-42"}}
    });
    let (status, answer) =
        s.call(Method::POST, "/tools/refund@1.0.0/authorize", Some(&s.token), Some(body)).await;
    assert_eq!(status, 200, "{answer}");
    answer
}

#[tokio::test(flavor = "multi_thread")]
async fn refunds_are_decided_per_call_and_logged_without_values() {
    let s = serve(None, &["--no-example"]);
    s.healthy().await;
    let (status, stored) = put_refund(&s, refund_rules()).await;
    assert_eq!(status, 201, "{stored}");
    // the rule without an id got one, and it is kept across a write without ids
    assert_eq!(stored["callRules"][2]["id"], "rule-1", "{stored}");
    let mut without_ids = refund_rules();
    for rule in without_ids.as_array_mut().unwrap() {
        rule.as_object_mut().unwrap().remove("id");
    }
    let (status, again) = put_refund(&s, without_ids).await;
    assert_eq!(status, 200, "{again}");
    let ids: Vec<&str> =
        again["callRules"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["cap-refunds", "usd-only", "rule-1"]);
    assert_eq!(again["version"], 1, "same content, same version: {again}");

    let small = authorize(&s, &[], 50.0, "USD").await;
    assert_eq!(
        (small["effect"].as_str(), small["outcome"].as_str()),
        (Some("allow"), Some("allow"))
    );
    let big = authorize(&s, &[], 500.0, "USD").await;
    assert_eq!(
        (big["effect"].as_str(), big["ruleId"].as_str()),
        (Some("deny"), Some("cap-refunds"))
    );
    let admin = authorize(&s, &["refund-admin"], 500.0, "USD").await;
    assert_eq!(admin["effect"], "allow", "{admin}");
    let euros = authorize(&s, &[], 50.0, "EUR").await;
    assert_eq!(
        (euros["effect"].as_str(), euros["outcome"].as_str()),
        (Some("allow"), Some("would-deny"))
    );
    assert_eq!(euros["wouldBe"]["ruleId"], "usd-only", "{euros}");
    assert!(euros.get("trace").is_none(), "the trace is opt-in: {euros}");

    // one decision line per authorize, with the deciding rule and no argument values
    let line = s.wait_for_line("decisionId", |l| l["decisionId"] == big["decisionId"]).await;
    assert_eq!(
        (line["point"].as_str(), line["ruleId"].as_str()),
        (Some("authorize"), Some("cap-refunds"))
    );
    assert_eq!(
        (line["principalId"].as_str(), line["function"].as_str()),
        (Some("alice"), Some("refund"))
    );
    let euro_line = s.wait_for_line("decisionId", |l| l["decisionId"] == euros["decisionId"]).await;
    assert_eq!(euro_line["outcome"], "would-deny");
    for record in s.json_lines_with("decisionId") {
        let text = record.to_string();
        assert!(record.get("arguments").is_none() && record.get("context").is_none(), "{text}");
        assert!(!text.contains("EUR") && !text.contains("c-42"), "argument values logged: {text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn call_rules_are_checked_against_the_schema_on_write() {
    let s = serve(None, &["--no-example"]);
    s.healthy().await;
    let typo = json!([{"effect": "deny", "condition": "call.arguments.amout > 100.0"}]);
    let (status, problem) = put_refund(&s, typo).await;
    assert_eq!(status, 400, "{problem}");
    let error = &problem["errors"][0];
    assert_eq!(error["path"], "/callRules/0/condition", "{problem}");
    for name in ["amount", "currency", "customerId"] {
        assert!(error["message"].as_str().unwrap().contains(name), "{problem}");
    }
    let wrong_type = json!([{"effect": "deny", "condition": "call.arguments.amount == 'x'"}]);
    let (status, problem) = put_refund(&s, wrong_type).await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["errors"][0]["path"], "/callRules/0/condition", "{problem}");
    // nothing was stored
    let (status, _) = s.call(Method::GET, "/tools/refund@1.0.0", Some(&s.token), None).await;
    assert_eq!(status, 404);
    // a release whose schema drops a parameter a call rule reads is refused the same way
    assert_eq!(put_refund(&s, refund_rules()).await.0, 201);
    let mut next = refund(refund_rules());
    next["functionSchema"][0]["parameters"].as_object_mut().unwrap().remove("currency");
    let (status, problem) =
        s.call(Method::PUT, "/tools/refund@2.0.0", Some(&s.token), Some(next)).await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["errors"][0]["path"], "/callRules/1/condition", "{problem}");
}

#[tokio::test(flavor = "multi_thread")]
async fn resolution_signs_the_context_and_reports_log_only_rules() {
    let s = serve(None, &[]);
    s.healthy().await;
    // a log-only access rule tried on the example agent: resolution does not change
    let (_, mut agent) = s.call(Method::GET, "/agents/weather-agent", Some(&s.token), None).await;
    let rules = agent["accessRules"].as_array_mut().unwrap();
    rules.insert(
        0,
        json!({"id": "try-no-externals", "effect": "deny", "mode": "log-only", "order": 0,
                           "condition": "user.userType == 'external-user'"}),
    );
    let (status, updated) =
        s.call(Method::PUT, "/agents/weather-agent", Some(&s.token), Some(agent)).await;
    assert_eq!(status, 200, "{updated}");
    let context = json!({"user": {"userId": "bob", "userType": "external-user"}});
    let (status, resolved) = s
        .call(Method::POST, "/agents/weather-agent/resolve", Some(&s.token), Some(context.clone()))
        .await;
    assert_eq!(status, 200, "{resolved}");
    assert_eq!(resolved["inlineAgent"]["actionGroups"].as_array().unwrap().len(), 2);
    assert!(resolved.get("trace").is_none(), "the trace is opt-in");
    assert_eq!(
        resolved["leftOut"],
        json!([{"id": "weather-forecast@1.0.0", "kind": "tool", "reason": "DENIED"}])
    );
    let agent_line = s
        .wait_for_line("decisionId", |l| {
            l["point"] == "resolve" && l.get("toolId").is_none() && l["principalId"] == "bob"
        })
        .await;
    assert_eq!(
        (agent_line["outcome"].as_str(), agent_line["wouldBeRuleId"].as_str()),
        (Some("would-deny"), Some("try-no-externals"))
    );

    let (_, explained) = s
        .call(
            Method::POST,
            "/agents/weather-agent/resolve?explain=true",
            Some(&s.token),
            Some(context.clone()),
        )
        .await;
    assert_eq!(
        explained["trace"]["access"]["wouldBe"]["ruleId"], "try-no-externals",
        "{explained}"
    );

    // the principal token verifies with the key set served over HTTP and with the key in
    // the data directory, bound to the session resolve made
    let token =
        resolved["inlineAgent"]["inlineSessionState"]["sessionAttributes"]["registryPrincipal"]
            .as_str()
            .unwrap();
    let (status, discovery) =
        s.call(Method::GET, "/.well-known/openid-configuration", None, None).await;
    assert_eq!(status, 200, "{discovery}");
    let issuer = discovery["issuer"].as_str().unwrap();
    assert_eq!(discovery["jwks_uri"], format!("{issuer}/.well-known/jwks.json"));
    let (status, jwks) = s.call(Method::GET, "/.well-known/jwks.json", None, None).await;
    assert_eq!(status, 200, "{jwks}");
    let verifier = Verifier::from_jwks_json(&jwks.to_string(), issuer, "agent-registry").unwrap();
    let principal = verifier.verify(token, chrono_now()).unwrap();
    assert_eq!(principal.agent_id(), "weather-agent");
    assert_eq!(principal.sub.as_deref(), Some("bob"));
    assert_eq!(Some(principal.session_id()), resolved["sessionId"].as_str());
    let keys = KeyRing::parse(&std::fs::read_to_string(s.data.join("signing-keys.json")).unwrap())
        .unwrap();
    assert!(keys.verifier(issuer, "agent-registry").unwrap().verify(token, chrono_now()).is_ok());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode =
            std::fs::metadata(s.data.join("signing-keys.json")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // what Bedrock accepts, with the session the token is bound to
    let mut request = resolved["inlineAgent"].clone();
    request["sessionId"] = resolved["sessionId"].clone();
    request["inputText"] = json!("hi");
    aws_conformance::Model::bedrock_agent_runtime().assert("InvokeInlineAgentRequest", &request);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_authorizes_a_call() {
    let s = serve(None, &[]);
    s.healthy().await;
    let (ok, out, err) = s.cli(&[
        "tools",
        "authorize",
        "convert_units@1.0.0",
        "--function",
        "convert",
        "--args",
        r#"{"value": 5e10, "from": "km", "to": "m"}"#,
        "-o",
        "json",
    ]);
    assert!(ok, "{err}");
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (answer["effect"].as_str(), answer["ruleId"].as_str()),
        (Some("deny"), Some("no-huge-values"))
    );
    let (ok, out, err) = s.cli(&[
        "agents",
        "resolve",
        "weather-agent",
        "--context",
        r#"{"user": {"userType": "internal-user"}}"#,
        "--explain",
        "-o",
        "json",
    ]);
    assert!(ok, "{err}");
    assert!(serde_json::from_str::<Value>(&out).unwrap().get("trace").is_some(), "{out}");
}

fn chrono_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or_default()
}
