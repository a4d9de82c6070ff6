#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `POST /tools/{id}/authorize` with a principal token in `X-Registry-Principal`, as a
//! tool's guard in remote mode sends it: the agent, context and session are the
//! token's alone (a body naming them too is refused), the registry counts the token's
//! session, and a token it does not accept is refused at the header. And
//! `POST /tools/{id}/test-invoke`'s principal fields, checked before anything is invoked.

mod common;

use common::{Server, agent_json};
use registry_api::service::PrincipalGrant;
use reqwest::Method;
use serde_json::{Value, json};

const TOOL: &str = "refunds@1.0.0";

/// A server issuing principal tokens, the refund tool (granted to user `carol` only)
/// and agent `support` using it, allowed one tool call per session.
async fn setup() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let keys = common::principal_keys(dir.path()).await;
    let s = common::start_with_registry(Default::default(), |r| r.with_principal_keys(keys)).await;
    let tool = json!({
        "toolId": TOOL, "executionType": "lambda", "name": "refunds", "displayName": "Refunds",
        "description": "Refunds a customer.",
        "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:refund",
        "supportedAgentFrameworks": ["bedrock"],
        "functionSchema": [{"name": "issue_refund", "description": "Refund an amount.",
            "parameters": {"amount": {"type": "number", "description": "Amount", "required": true}}}],
        "accessRules": [{"id": "carol-only", "effect": "allow", "condition": "user.userId == 'carol'"}],
        "callRules": [
            {"id": "small", "effect": "deny", "description": "Refunds above 100 need a human",
             "condition": "call.arguments.amount > 100.0"},
            {"id": "allow", "effect": "allow"}
        ]
    });
    assert_eq!(s.create_tool(&tool).await.status, 201);
    let mut agent = agent_json("support", &[TOOL]);
    agent["limits"] = json!({"maxToolCalls": 1});
    assert_eq!(s.create_agent(&agent).await.status, 201);
    s
}

/// A principal token for `user` of `agent` in `session`, issued by the registry's one
/// issuing function.
fn token_of(s: &Server, agent: &str, user: &str, session: &str) -> String {
    let context = serde_json::to_vec(&json!({"user": {"userId": user}})).unwrap();
    let grant = PrincipalGrant {
        agent_id: agent,
        user_id: Some(user),
        session_id: session,
        context_json: &context,
    };
    s.registry.resolver.issue_principal(&grant).unwrap()
}

fn token(s: &Server, user: &str, session: &str) -> String {
    token_of(s, "support", user, session)
}

async fn authorize(s: &Server, token: &str, body: &Value) -> common::Reply {
    let path = format!("/tools/{TOOL}/authorize");
    let request = s.req(Method::POST, &path, &s.reader).header("X-Registry-Principal", token);
    s.send(request.json(body)).await
}

fn refund(amount: f64) -> Value {
    json!({"call": {"function": "issue_refund", "arguments": {"amount": amount}}})
}

#[tokio::test]
async fn the_token_names_the_principal_and_its_session_counts() {
    let s = setup().await;
    // the token's user decides access: carol is granted the tool, dave is not
    let carol = token(&s, "carol", "session-1");
    let r = authorize(&s, &token(&s, "dave", "session-0"), &refund(5.0)).await;
    assert_eq!((r.status.as_u16(), r.body["stage"].as_str()), (200, Some("access")), "{}", r.text);
    assert_eq!(r.body["effect"], "deny");
    // a call rule's denial says why, as a guard answers the model
    let r = authorize(&s, &carol, &refund(500.0)).await;
    assert_eq!(r.body["ruleId"], "small", "{}", r.text);
    assert_eq!(r.body["why"], "Refunds above 100 need a human (rule `small`)");
    // the token's session counts: one call allowed, the next refused by the budget
    let r = authorize(&s, &carol, &refund(5.0)).await;
    assert_eq!(r.body["effect"], "allow", "{}", r.text);
    assert_eq!(r.body["session"]["calls"], 1, "{}", r.text);
    let r = authorize(&s, &carol, &refund(5.0)).await;
    assert_eq!(
        (r.body["effect"].as_str(), r.body["limit"].as_str()),
        (Some("deny"), Some("maxToolCalls"))
    );
    assert!(r.body["why"].as_str().unwrap().contains("budget is spent"), "{}", r.text);
    // another session of the same principal has its own budget
    let r = authorize(&s, &token(&s, "carol", "session-2"), &refund(5.0)).await;
    assert_eq!(r.body["effect"], "allow", "{}", r.text);
    // a token's agent that is not (or no longer) live grants nothing (decision 98)
    let ghost = token_of(&s, "ghost", "carol", "session-3");
    for _ in 0..2 {
        let r = authorize(&s, &ghost, &refund(5.0)).await;
        assert_eq!(
            (r.body["effect"].as_str(), r.body["stage"].as_str(), r.body["reason"].as_str()),
            (Some("deny"), Some("grant"), Some("NOT_GRANTED")),
            "{}",
            r.text
        );
        assert!(r.body.get("session").is_none(), "nothing counted: {}", r.text);
    }
}

#[tokio::test]
async fn with_a_token_the_body_names_no_principal_and_a_bad_token_is_refused() {
    let s = setup().await;
    let carol = token(&s, "carol", "session-1");
    let mut body = refund(5.0);
    body["context"] = json!({"user": {"userId": "mallory"}});
    body["agentId"] = json!("support");
    body["sessionId"] = json!("session-9");
    let r = authorize(&s, &carol, &body).await;
    r.assert_problem(400, "VALIDATION_FAILED");
    assert_eq!(r.error_paths(), ["/context", "/agentId", "/sessionId"], "{}", r.text);
    // not a token of this registry, altered, or signed by another key: refused at the header
    let now = chrono::Utc::now().timestamp();
    let forged = registry_token::KeyRing::generate(now)
        .unwrap()
        .issue(&registry_token::TokenRequest {
            issuer: common::ISSUER,
            audience: registry_token::DEFAULT_AUDIENCE,
            user_id: Some("carol"),
            agent_id: "support",
            session_id: "session-1",
            context_json: r#"{"user":{"userId":"carol"}}"#,
            now,
            ttl_seconds: 3_600,
        })
        .unwrap();
    // the payload re-encoded: another user in the same signature
    let mut parts: Vec<String> = carol.split('.').map(str::to_owned).collect();
    parts[1] = parts[1].replacen('e', "f", 1);
    for bad in ["garbage".to_owned(), parts.join("."), forged] {
        let r = authorize(&s, &bad, &refund(5.0)).await;
        r.assert_problem(400, "VALIDATION_FAILED");
        assert_eq!(r.error_paths(), ["/headers/X-Registry-Principal"], "{}", r.text);
    }
    // the session the call arrived in must be the token's
    let path = format!("/tools/{TOOL}/authorize");
    let in_session = |session: &str| {
        s.req(Method::POST, &path, &s.reader)
            .header("X-Registry-Principal", &carol)
            .header("X-Registry-Session", session)
            .json(&refund(5.0))
    };
    let r = s.send(in_session("session-2")).await;
    r.assert_problem(400, "VALIDATION_FAILED");
    assert_eq!(r.error_paths(), ["/headers/X-Registry-Session"], "{}", r.text);
    // nothing was counted by the refused requests
    let r = s.send(in_session("session-1")).await;
    assert_eq!(r.body["session"]["calls"], 1, "{}", r.text);
}

#[cfg(feature = "aws")]
#[tokio::test]
async fn test_invoke_checks_its_principal_before_invoking() {
    let s = setup().await;
    let path = format!("/tools/{TOOL}/test-invoke");
    let invoke = |body: Value| s.send(s.req(Method::POST, &path, &s.editor).json(&body));
    let call = json!({"function": "issue_refund", "arguments": {"amount": 5}});
    let mut body = call.clone();
    body["sessionId"] = json!("session-1");
    invoke(body).await.assert_invalid_at("/agentId");
    let mut body = call.clone();
    body["agentId"] = json!("support");
    body["sessionId"] = json!("not a session\n");
    invoke(body).await.assert_invalid_at("/sessionId");
    let mut body = call.clone();
    body["sessionAttributes"] = json!({"registryPrincipal": "v1.x"});
    body["context"] = json!({"user": {"userId": "carol"}});
    invoke(body).await.assert_invalid_at("/sessionAttributes/registryPrincipal");
    // a valid principal goes on to the invoke, which this server cannot make
    let mut body = call.clone();
    body["agentId"] = json!("support");
    body["sessionId"] = json!("session-1");
    let r = invoke(body).await;
    assert!(r.status.as_u16() >= 500, "{} {}", r.status, r.text);
}

#[tokio::test]
async fn a_token_is_granted_its_agents_tools_only_and_stops_when_its_agent_is_switched_off() {
    let s = setup().await;
    // an agent that does not use the refund tool: its token is not granted it
    assert_eq!(s.create_agent(&agent_json("other", &[])).await.status, 201);
    let other = token_of(&s, "other", "carol", "session-o");
    let r = authorize(&s, &other, &refund(5.0)).await;
    assert_eq!(r.status, 200, "a denial, not an error: {}", r.text);
    assert_eq!(
        (r.body["stage"].as_str(), r.body["reason"].as_str()),
        (Some("grant"), Some("NOT_GRANTED"))
    );
    // the body form naming that agent decides alike
    let mut body = refund(5.0);
    body["context"] = json!({"user": {"userId": "carol"}});
    body["agentId"] = json!("other");
    let path = format!("/tools/{TOOL}/authorize");
    let r = s.send(s.req(Method::POST, &path, &s.reader).json(&body)).await;
    assert_eq!(r.body["reason"], "NOT_GRANTED", "{}", r.text);
    // the support agent's token is granted it, until the agent is disabled: at once
    let carol = token(&s, "carol", "session-d");
    assert_eq!(authorize(&s, &carol, &refund(5.0)).await.body["effect"], "allow");
    let patched = s
        .send(
            s.req(Method::PATCH, "/agents/support", &s.admin)
                .header("if-match", "\"1\"")
                .header("content-type", "application/merge-patch+json")
                .json(&json!({"lifecycle": {"status": "disabled"}})),
        )
        .await;
    assert_eq!(patched.status, 200, "{}", patched.text);
    let r = authorize(&s, &token(&s, "carol", "session-e"), &refund(5.0)).await;
    assert_eq!(
        (r.body["stage"].as_str(), r.body["reason"].as_str()),
        (Some("grant"), Some("NOT_GRANTED")),
        "{}",
        r.text
    );
}
