#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `POST /tools/{id}/token` against a real OAuth token endpoint on loopback, started by
//! the test: who gets a token (the `runtime` role only), one upstream request for many
//! callers, lifetimes, failures as 502 problems that carry no secret, and a hanging
//! endpoint that holds neither the server nor itself.

mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode as AxumStatus};
use axum::response::{IntoResponse, Redirect};
use axum::routing::post;
use common::{Server, agent_json, mcp_tool_json, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const SECRET: &str = "broker-client-secret-5d2e";

/// The token endpoint: counts requests, checks the client credentials (HTTP Basic,
/// `registry:<SECRET>`) and the grant, answers a one-hour token (`?expires_in=N` another
/// lifetime, `?expires_in=none` none).
#[derive(Clone, Default)]
struct Endpoint {
    calls: Arc<AtomicUsize>,
}

async fn token(
    State(e): State<Endpoint>,
    Query(query): Query<HashMap<String, String>>,
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
    let mut answer = json!({"access_token": format!("tok-{n}"), "token_type": "Bearer"});
    match query.get("bad").map(String::as_str) {
        Some("crlf") => answer["access_token"] = json!(format!("tok-{n}\r\nX-Evil: 1")),
        Some("space") => answer["access_token"] = json!(format!("tok {n}")),
        Some("type") => answer["token_type"] = json!("Bearer\u{0}"),
        _ => {}
    }
    match query.get("expires_in").map(String::as_str) {
        Some("none") => {}
        Some(n) => answer["expires_in"] = json!(n.parse::<u64>().unwrap()),
        None => answer["expires_in"] = json!(3600),
    }
    axum::Json(answer).into_response()
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

/// A server whose tool `m1` gets its tokens from a fresh [`endpoint`].
async fn broker() -> (Server, Endpoint) {
    let (s, (base, endpoint)) = (start().await, endpoint().await);
    setup(&s, &format!("{base}/token")).await;
    (s, endpoint)
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
    let (s, endpoint) = broker().await;
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
    let (s, endpoint) = broker().await;
    // As many as may wait for one tool's endpoint.
    let replies = futures::future::join_all(
        (0..registry_api::service::MAX_WAITERS_PER_TOOL).map(|_| ask(&s, &s.runtime, "ana")),
    )
    .await;
    for r in &replies {
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_eq!(r.body["accessToken"], "tok-1");
    }
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn denied_principals_readers_and_strangers_get_no_token() {
    let (s, endpoint) = broker().await;
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
async fn only_the_runtime_role_obtains_tokens_not_the_roles_ranked_above_it() {
    let (s, endpoint) = broker().await;
    for (token, role) in [(&s.approver, "approver"), (&s.editor, "editor"), (&s.admin, "admin")] {
        let r = ask(&s, token, "ana").await;
        r.assert_problem(403, "FORBIDDEN");
        let detail = r.body["detail"].as_str().unwrap();
        assert!(detail.contains("only the `runtime` role") && detail.contains(role), "{detail}");
    }
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 0);
    let r = ask(&s, &s.runtime, "ana").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_token_without_expiry_lives_the_default_and_a_short_one_is_not_handed_out() {
    let (base, endpoint) = endpoint().await;
    // No `expires_in`: the default lifetime, cached like any other token.
    let s = start().await;
    setup(&s, &format!("{base}/token?expires_in=none")).await;
    let first = ask(&s, &s.runtime, "ana").await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    let expires = first.body["expiresIn"].as_u64().unwrap();
    assert!(expires > 270 && expires <= 300, "{expires}");
    let second = ask(&s, &s.runtime, "ana").await;
    assert_eq!(second.body["accessToken"], first.body["accessToken"], "{}", second.text);
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 1);
    // 5 s, or exactly the 30 s margin, left: a 502 naming the lifetime, never the token.
    for lifetime in [5, 30] {
        let s = start().await;
        setup(&s, &format!("{base}/token?expires_in={lifetime}")).await;
        let before = endpoint.calls.load(Ordering::SeqCst);
        for _ in 0..2 {
            let r = ask(&s, &s.runtime, "ana").await;
            r.assert_problem(502, "UPSTREAM_FAILED");
            let detail = r.body["detail"].as_str().unwrap();
            assert!(detail.contains(&format!("valid for {lifetime} s")), "{detail}");
            assert!(!r.text.contains("tok-"), "{}", r.text);
        }
        // Asked, and not cached: the second request did not get a token either.
        assert!(endpoint.calls.load(Ordering::SeqCst) > before);
    }
}

/// A token endpoint on loopback that accepts connections and never answers; the number
/// of connections it accepted.
async fn hanging_endpoint() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/token", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            held.push(stream);
        }
    });
    (url, accepted)
}

#[tokio::test]
async fn a_hanging_token_endpoint_holds_neither_health_nor_readers_and_is_asked_once() {
    let s = start().await;
    let (url, accepted) = hanging_endpoint().await;
    setup(&s, &url).await;
    let answered = AtomicUsize::new(0);
    let requests = futures::future::join_all((0..300).map(|_| async {
        let r = ask(&s, &s.runtime, "ana").await;
        answered.fetch_add(1, Ordering::SeqCst);
        r
    }));
    let others = async {
        // The endpoint holds one upstream request and every token request but those
        // waiting for it was answered: what the hanging endpoint holds now, it holds
        // for as long as it hangs.
        let waiters = registry_api::service::MAX_WAITERS_PER_TOOL;
        while accepted.load(Ordering::SeqCst) == 0
            || answered.load(Ordering::SeqCst) < 300 - waiters
        {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let health = s.send(s.req(Method::GET, "/healthz", "")).await;
        let reads = futures::future::join_all((0..50).map(|_| s.get("/tools/m1"))).await;
        (health, reads)
    };
    let (replies, (health, reads)) = tokio::join!(requests, others);
    assert_eq!(health.status, StatusCode::OK, "{}", health.text);
    for r in &reads {
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
    // Waiters shared the one failure (502); the rest were refused at the broker's caps
    // with a problem that says when to retry.
    let mut failed = 0;
    for r in &replies {
        if r.status == StatusCode::BAD_GATEWAY {
            r.assert_problem(502, "UPSTREAM_FAILED");
            failed += 1;
        } else {
            // Refused at the broker's caps, or (300 at once, on a slower store) at the
            // server's in-flight cap before reaching the broker.
            r.assert_problem(503, "OVERLOADED");
            assert_eq!(r.headers["retry-after"], "1", "{}", r.text);
            let detail = r.body["detail"].as_str().unwrap();
            assert!(detail.contains("token") || detail.contains("requests already"), "{detail}");
        }
    }
    assert!(failed >= 1, "no request waited for the endpoint");
    // One upstream request for the key (a second only if a request came after the
    // shared failure's 5 s), not one per waiter.
    assert!(accepted.load(Ordering::SeqCst) <= 2, "{}", accepted.load(Ordering::SeqCst));
}

#[tokio::test]
async fn a_hanging_endpoint_asked_in_many_scopes_leaves_other_tools_their_tokens() {
    let s = start().await;
    let (hanging, _) = hanging_endpoint().await;
    setup(&s, &hanging).await;
    let (base, endpoint) = endpoint().await;
    let mut healthy = mcp_tool_json("m2", SECRET);
    healthy["name"] = json!("healthy");
    healthy["auth"]["tokenUrl"] = json!(format!("{base}/token"));
    let r = s.send(s.req(Method::POST, "/tools", &s.editor).json(&healthy)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let r = s
        .send(s.req(Method::POST, "/agents", &s.editor).json(&agent_json("a2", &["m1", "m2"])))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // The scope is the caller's to choose: a new one per request is no way around the
    // tool's cap, so the hanging tool never holds the whole broker.
    let answered = AtomicUsize::new(0);
    let hung = futures::future::join_all((0..140).map(|i| {
        let answered = &answered;
        let s = &s;
        async move {
            let path = format!("/tools/m1/token?agentId=a2&scope=s{i}");
            let r = s.send(s.req(Method::POST, &path, &s.runtime).json(&context("ana"))).await;
            answered.fetch_add(1, Ordering::SeqCst);
            r
        }
    }));
    let other = async {
        let waiters = registry_api::service::MAX_WAITERS_PER_TOOL;
        while answered.load(Ordering::SeqCst) < 140 - waiters {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let path = "/tools/m2/token?agentId=a2&scope=other";
        s.send(s.req(Method::POST, path, &s.runtime).json(&context("ana"))).await
    };
    let (replies, other) = tokio::join!(hung, other);
    assert_eq!(other.status, StatusCode::OK, "{}", other.text);
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 1);
    let refused = replies.iter().filter(|r| r.status == StatusCode::SERVICE_UNAVAILABLE).count();
    assert!(refused >= 140 - registry_api::service::MAX_WAITERS_PER_TOOL, "{refused}");
}

#[tokio::test]
async fn a_token_a_runtime_cannot_put_in_a_header_as_it_is_is_not_handed_out() {
    let (base, endpoint) = endpoint().await;
    for bad in ["crlf", "space", "type"] {
        let s = start().await;
        setup(&s, &format!("{base}/token?bad={bad}")).await;
        let r = ask(&s, &s.runtime, "ana").await;
        r.assert_problem(502, "UPSTREAM_FAILED");
        assert!(!r.text.contains("tok-") && !r.text.contains("X-Evil"), "{}", r.text);
    }
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_scope_is_rfc_6749_scope_tokens_and_bounded() {
    let (s, endpoint) = broker().await;
    let long = "s".repeat(1025);
    for scope in ["a%20%20b", "%20a", "a%22b", "a%5Cb", "a%0Ab", "a%00b", long.as_str()] {
        let path = format!("/tools/m1/token?agentId=a1&scope={scope}");
        let r = s.send(s.req(Method::POST, &path, &s.runtime).json(&context("ana"))).await;
        r.assert_problem(400, "VALIDATION_FAILED");
        assert_eq!(r.body["errors"][0]["path"], "/scope", "{}", r.text);
        assert!(r.text.len() < 1_000, "{}", r.text);
    }
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 0);
    let path = "/tools/m1/token?agentId=a1&scope=read%20write:all";
    let r = s.send(s.req(Method::POST, path, &s.runtime).json(&context("ana"))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

#[tokio::test]
async fn a_token_url_with_a_user_no_host_a_line_break_or_8_kb_is_refused_on_write() {
    let s = start().await;
    let long = format!("https://idp.example.com/{}", "a".repeat(8 * 1024));
    for (i, url) in [
        "https://user:pw@idp.example.com/token",
        "https://@idp.example.com/token",
        "https:///idp.example.com/token",
        "https://idp.example.com/token\r\nX-Injected: 1",
        long.as_str(),
    ]
    .into_iter()
    .enumerate()
    {
        let mut tool = mcp_tool_json(&format!("bad{i}"), SECRET);
        tool["auth"]["tokenUrl"] = json!(url);
        let r = s.send(s.req(Method::POST, "/tools", &s.editor).json(&tool)).await;
        r.assert_invalid_at("/auth/tokenUrl");
        assert!(r.text.len() < 2_048, "{}", r.text);
        s.get(&format!("/tools/bad{i}")).await.assert_problem(404, "NOT_FOUND");
    }
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
    let dir = tempfile::tempdir().unwrap();
    let keys = common::principal_keys(dir.path()).await;
    let s = common::start_with_registry(Default::default(), |r| r.with_principal_keys(keys)).await;
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
    let (head, rest) = ana.split_once('.').unwrap();
    let altered = format!("{head}.{}", rest.replacen(|c: char| c.is_ascii_lowercase(), "Z", 1));
    let r = s.send(with_header(&altered, "/tools/m1/token")).await;
    r.assert_problem(400, "VALIDATION_FAILED");
    let blocked = signed("blocked").await;
    let r = s.send(with_header(&blocked, "/tools/m1/token")).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    // Two signed contexts: which one stands would depend on the order, so neither does.
    for (first, second) in [(&ana, &blocked), (&blocked, &ana), (&ana, &ana)] {
        let r = s
            .send(with_header(first, "/tools/m1/token").header("X-Registry-Principal", second))
            .await;
        r.assert_problem(400, "BAD_REQUEST");
        assert_eq!(r.error_paths(), ["/headers/X-Registry-Principal"], "{}", r.text);
    }
    assert_eq!(endpoint.calls.load(Ordering::SeqCst), 1);
}
