#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `POST /tools/{id}/token` against a real OAuth token endpoint on loopback, started by
//! the test: who gets a token, one upstream request for many callers, failures as 502
//! problems that carry no secret.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode as AxumStatus};
use axum::response::{IntoResponse, Redirect};
use axum::routing::post;
use common::{Server, agent_json, mcp_tool_json, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const SECRET: &str = "broker-client-secret-5d2e";

/// The token endpoint: counts requests, checks the client credentials (HTTP Basic,
/// `registry:<SECRET>`) and the grant, answers a one-hour token.
#[derive(Clone, Default)]
struct Endpoint {
    calls: Arc<AtomicUsize>,
}

async fn token(
    State(e): State<Endpoint>,
    headers: HeaderMap,
    body: String,
) -> axum::response::Response {
    let n = e.calls.fetch_add(1, Ordering::SeqCst) + 1;
    use base64::Engine;
    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("registry:{SECRET}"))
    );
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or_default();
    if auth != expected || !body.contains("grant_type=client_credentials") {
        return (AxumStatus::UNAUTHORIZED, format!("bad client; secret was {SECRET}"))
            .into_response();
    }
    axum::Json(
        json!({"access_token": format!("tok-{n}"), "token_type": "Bearer", "expires_in": 3600}),
    )
    .into_response()
}

/// Starts the endpoint on 127.0.0.1; `/token` answers, `/redirect` redirects to it,
/// `/fail` answers 500 with a body naming the secret.
async fn endpoint() -> (String, Endpoint) {
    let state = Endpoint::default();
    let app = Router::new()
        .route("/token", post(token))
        .route("/redirect", post(|| async { Redirect::temporary("/token") }))
        .route(
            "/fail",
            post(|| async { (AxumStatus::INTERNAL_SERVER_ERROR, format!("boom {SECRET}")) }),
        )
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, state)
}

/// An MCP tool `m1` whose token endpoint is `token_url`, denied to `blocked` users, and
/// an agent `a1` using it.
async fn setup(s: &Server, token_url: &str) {
    let mut tool = mcp_tool_json("m1", SECRET);
    tool["auth"]["tokenUrl"] = json!(token_url);
    tool["accessRules"] = json!([
        {"effect": "deny", "condition": "user.userId == 'blocked'"},
        {"effect": "allow"}
    ]);
    let r = s.send(s.req(Method::POST, "/tools", &s.editor).json(&tool)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let r =
        s.send(s.req(Method::POST, "/agents", &s.editor).json(&agent_json("a1", &["m1"]))).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
}

fn context(user: &str) -> Value {
    json!({"user": {"userId": user, "userType": "internal-user"}, "account": {"accountId": "acct-1"}})
}

async fn ask(s: &Server, token: &str, user: &str) -> common::Reply {
    s.send(s.req(Method::POST, "/tools/m1/token?agentId=a1", token).json(&context(user))).await
}

#[tokio::test]
async fn an_allowed_runtime_gets_a_token_and_many_callers_cause_one_upstream_request() {
    let s = start().await;
    let (base, endpoint) = endpoint().await;
    setup(&s, &format!("{base}/token")).await;
    let first = ask(&s, &s.runtime, "ana").await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    assert_eq!(first.body["accessToken"], "tok-1");
    assert_eq!(first.body["tokenType"], "Bearer");
    let expires = first.body["expiresIn"].as_u64().unwrap();
    assert!(expires > 3_000 && expires <= 3_600, "{expires}");
    // 100 concurrent requests: the one cached token, no new upstream request.
    hundred_get_the_first_token(&s).await;
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 1);
}

/// 100 concurrent token requests, each answered with the endpoint's first token.
async fn hundred_get_the_first_token(s: &Server) {
    let replies = futures::future::join_all((0..100).map(|_| ask(s, &s.runtime, "ana"))).await;
    for r in &replies {
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_eq!(r.body["accessToken"], "tok-1");
    }
}

#[tokio::test]
async fn concurrent_first_requests_share_one_upstream_request() {
    let s = start().await;
    let (base, endpoint) = endpoint().await;
    setup(&s, &format!("{base}/token")).await;
    hundred_get_the_first_token(&s).await;
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn denied_principals_readers_and_strangers_get_no_token() {
    let s = start().await;
    let (base, endpoint) = endpoint().await;
    setup(&s, &format!("{base}/token")).await;
    // The tool's access rules deny this user.
    let r = ask(&s, &s.runtime, "blocked").await;
    r.assert_problem(403, "FORBIDDEN");
    assert!(r.body["detail"].as_str().unwrap().contains("not granted"), "{}", r.text);
    // A reader may resolve but not obtain tokens; no token is no caller.
    ask(&s, &s.reader, "ana").await.assert_problem(403, "FORBIDDEN");
    ask(&s, "", "ana").await.assert_problem(401, "UNAUTHENTICATED");
    // An agent that does not use the tool, or no agent named.
    s.send(s.req(Method::POST, "/agents", &s.editor).json(&agent_json("a2", &[]))).await;
    let r = s
        .send(s.req(Method::POST, "/tools/m1/token?agentId=a2", &s.runtime).json(&context("ana")))
        .await;
    r.assert_problem(403, "FORBIDDEN");
    let r = s.send(s.req(Method::POST, "/tools/m1/token", &s.runtime).json(&context("ana"))).await;
    r.assert_invalid_at("/agentId");
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn upstream_failures_are_502_without_the_secret_and_redirects_are_refused() {
    let s = start().await;
    let (base, endpoint) = endpoint().await;
    for (path, expect) in [("/redirect", "redirects are not followed"), ("/fail", "HTTP 500")] {
        let s2 = start().await;
        setup(&s2, &format!("{base}{path}")).await;
        let r = ask(&s2, &s2.runtime, "ana").await;
        r.assert_problem(502, "UPSTREAM_FAILED");
        assert!(r.body["detail"].as_str().unwrap().contains(expect), "{}", r.text);
        assert!(!r.text.contains(SECRET) && !r.text.contains("boom"), "{}", r.text);
    }
    // The redirect was not followed: /token never saw a request.
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 0);
    // Endpoint down: a port nothing listens on.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let down = format!("http://{}/token", closed.local_addr().unwrap());
    drop(closed);
    setup(&s, &down).await;
    let r = ask(&s, &s.runtime, "ana").await;
    r.assert_problem(502, "UPSTREAM_FAILED");
    assert!(!r.text.contains(SECRET), "{}", r.text);
}

/// Collects what the tracing subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every token request is one decision line (issued, cached or fetched, or refused),
/// naming principal, agent and tool, never the token or the secret.
#[tokio::test]
async fn each_token_decision_is_one_log_line_without_token_or_secret() {
    let logs = Captured::default();
    let writer = logs.clone();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("registry::decision=info"))
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .init();
    let s = start().await;
    let (base, _) = endpoint().await;
    let mut tool = mcp_tool_json("m9", SECRET);
    tool["auth"]["tokenUrl"] = json!(format!("{base}/token"));
    tool["accessRules"] =
        json!([{"effect": "deny", "condition": "user.userId == 'blocked'"}, {"effect": "allow"}]);
    s.send(s.req(Method::POST, "/tools", &s.editor).json(&tool)).await;
    s.send(s.req(Method::POST, "/agents", &s.editor).json(&agent_json("a-logged", &["m9"]))).await;
    let ask = |user: &'static str| {
        s.send(
            s.req(Method::POST, "/tools/m9/token?agentId=a-logged", &s.runtime)
                .json(&context(user)),
        )
    };
    let first = ask("ana").await;
    let token = first.body["accessToken"].as_str().unwrap().to_owned();
    ask("ana").await;
    ask("blocked").await;
    let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = logged.lines().filter(|l| l.contains("agent=a-logged")).collect();
    assert_eq!(lines.len(), 3, "{logged}");
    assert!(
        lines[0].contains("outcome=\"issued\"") && lines[0].contains("detail=\"fetched\""),
        "{}",
        lines[0]
    );
    assert!(lines[1].contains("detail=\"cached\""), "{}", lines[1]);
    assert!(lines[2].contains("outcome=\"refused\""), "{}", lines[2]);
    for line in lines {
        assert!(line.contains("principal=chat-runtime") && line.contains("tool=m9"), "{line}");
        assert!(!line.contains(&token) && !line.contains(SECRET), "{line}");
    }
}

#[tokio::test]
async fn the_signed_context_of_a_resolve_stands_for_the_caller() {
    let keys = registry_access::signed::KeyRing::parse(
        "t1:dG9rZW4tdGVzdC1rZXktMDEyMzQ1Njc4OWFiY2RlZmdoaWprbA==",
    )
    .unwrap();
    let s = common::start_with_registry(Default::default(), |r| r.with_principal_keys(keys, 3_600))
        .await;
    let (base, endpoint) = endpoint().await;
    setup(&s, &format!("{base}/token")).await;
    let signed = |user: &str| {
        let s = &s;
        let body = context(user);
        async move {
            let r = s.send(s.req(Method::POST, "/agents/a1/resolve", &s.reader).json(&body)).await;
            assert_eq!(r.status, StatusCode::OK, "{}", r.text);
            r.body["inlineAgent"]["inlineSessionState"]["sessionAttributes"]["registryPrincipal"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let ana = signed("ana").await;
    let with_header = |principal: &str, path: &str| {
        s.req(Method::POST, path, &s.runtime)
            .header("X-Registry-Principal", principal)
            .json(&json!({}))
    };
    let r = s.send(with_header(&ana, "/tools/m1/token")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["accessToken"], "tok-1");
    // the signed agent stands; another agentId is refused
    let r = s.send(with_header(&ana, "/tools/m1/token?agentId=other")).await;
    r.assert_problem(400, "VALIDATION_FAILED");
    // an altered context is refused, and so is a denied principal's genuine one
    let r = s.send(with_header(&ana.replacen("v1.", "v1.x", 1), "/tools/m1/token")).await;
    r.assert_problem(400, "VALIDATION_FAILED");
    let blocked = signed("blocked").await;
    let r = s.send(with_header(&blocked, "/tools/m1/token")).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 1);
}
