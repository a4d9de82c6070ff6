//! The guard in remote mode facing a registry that misbehaves: one that accepts and never
//! answers, one that redirects to an allowing server, answers an error, a decision it
//! cannot read, or an allow in another shape; and an event whose session id or token
//! could not go into a header. Each call is refused (`FAILURE` or `REPROMPT`), the
//! handler never runs, and the wait is bounded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bedrock_action_group::ToolError;
use registry_guard::{DynamoSource, Guard, Remote, RemoteConfig, handle_guarded};
use serde_json::{Value, json};

/// A guard asking a registry at `url`, and its decision lines.
fn guard(url: &str) -> (Guard<DynamoSource>, Arc<Mutex<Vec<Value>>>) {
    let config = RemoteConfig {
        tool_id: "convert_units@1.0.0".into(),
        url: url.parse().unwrap(),
        token: "ar_token".into(),
    };
    let lines = Arc::new(Mutex::new(Vec::new()));
    let l = lines.clone();
    let guard = Guard::remote(Remote::new(config).unwrap())
        .with_log(move |line| l.lock().unwrap().push(serde_json::from_str(line).unwrap()));
    (guard, lines)
}

fn event(session: &str, attributes: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "messageVersion": "1.0",
        "agent": {"name": "units", "id": "AGENT1", "alias": "TSTALIASID", "version": "DRAFT"},
        "inputText": "convert", "sessionId": session, "actionGroup": "convert_units",
        "function": "convert",
        "parameters": [
            {"name": "value", "type": "number", "value": "5"},
            {"name": "from", "type": "string", "value": "km"},
            {"name": "to", "type": "string", "value": "m"}
        ],
        "sessionAttributes": attributes, "promptSessionAttributes": {}
    }))
    .unwrap()
}

/// Runs `body` through the guard (giving up after a minute: a hang, not a timing): the
/// response's state and whether the handler ran.
async fn call(guard: &Guard<DynamoSource>, body: &[u8]) -> (String, bool) {
    let ran = std::sync::atomic::AtomicBool::new(false);
    let handled = handle_guarded(guard, body, |_: Value| {
        ran.store(true, Ordering::SeqCst);
        Ok::<_, ToolError>("ran")
    });
    let response = tokio::time::timeout(std::time::Duration::from_secs(60), handled)
        .await
        .expect("the guard waited on the registry without bound");
    let json = serde_json::to_value(&response).unwrap();
    let state = json["response"]["functionResponse"]["responseState"]
        .as_str()
        .unwrap_or("(none)")
        .to_owned();
    (state, ran.into_inner())
}

/// A server answering every request with `status`, `headers` and `body`; counts them.
async fn answering(
    status: u16,
    headers: &'static [(&'static str, &'static str)],
    body: String,
    hits: Arc<AtomicUsize>,
) -> String {
    let app = axum::Router::new().fallback(move || {
        let body = body.clone();
        let hits = Arc::clone(&hits);
        async move {
            hits.fetch_add(1, Ordering::SeqCst);
            let mut response = axum::response::Response::new(axum::body::Body::from(body));
            *response.status_mut() = http::StatusCode::from_u16(status).unwrap();
            for (name, value) in headers {
                response.headers_mut().insert(*name, http::HeaderValue::from_static(value));
            }
            response
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

const TOKEN: &str = "eyJhbGciOiJSUzI1NiJ9.e30.c2ln";

#[tokio::test]
async fn a_registry_that_never_answers_refuses_the_call_within_the_timeout() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let (guard, lines) = guard(&format!("http://{addr}"));
    let (state, ran) = call(&guard, &event("s-1", json!({"registryPrincipal": TOKEN}))).await;
    assert!(!ran);
    assert_eq!(state, "FAILURE");
    let line = lines.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        (line["reason"].as_str(), line["effect"].as_str()),
        (Some("REGISTRY_UNAVAILABLE"), Some("deny"))
    );
}

#[tokio::test]
async fn a_misbehaving_registry_never_lets_a_call_through() {
    let allow = json!({
        "decisionId": "d1", "toolId": "convert_units@1.0.0", "version": 1,
        "effect": "allow", "outcome": "allow", "stage": "call", "reason": "RULE_MATCH"
    });
    let allowing =
        answering(200, &[("content-type", "application/json")], allow.to_string(), Arc::default())
            .await;
    let redirect_to: &'static str =
        Box::leak(format!("{allowing}/tools/x/authorize").into_boxed_str());
    let redirect_headers: &'static [(&'static str, &'static str)] =
        Box::leak(vec![("location", redirect_to)].into_boxed_slice());
    let cases: Vec<(&str, u16, &'static [(&'static str, &'static str)], String)> = vec![
        ("a redirect to an allowing server", 307, redirect_headers, String::new()),
        ("a redirect (302)", 302, redirect_headers, String::new()),
        ("a 500", 500, &[], r#"{"detail":"boom","effect":"allow"}"#.into()),
        ("a 503 with an allow body", 503, &[], allow.to_string()),
        (
            "an allow missing its outcome",
            200,
            &[],
            json!({"decisionId": "d", "effect": "allow"}).to_string(),
        ),
        ("an effect in another case", 200, &[], {
            let mut a = allow.clone();
            a["effect"] = json!("ALLOW");
            a.to_string()
        }),
        ("an effect that is no string", 200, &[], {
            let mut a = allow.clone();
            a["effect"] = json!(true);
            a.to_string()
        }),
        ("a list of allows", 200, &[], json!([allow.clone()]).to_string()),
        ("HTML", 200, &[("content-type", "text/html")], "<html>allow</html>".into()),
        ("an empty 200", 200, &[], String::new()),
        ("deep JSON", 200, &[], format!("{}{}", "[".repeat(10_000), "]".repeat(10_000))),
        ("a 201", 201, &[], allow.to_string()),
    ];
    for (what, status, headers, body) in cases {
        let hits = Arc::new(AtomicUsize::new(0));
        let url = answering(status, headers, body, Arc::clone(&hits)).await;
        let (guard, lines) = guard(&url);
        let (state, ran) = call(&guard, &event("s-1", json!({"registryPrincipal": TOKEN}))).await;
        assert!(!ran, "{what}: the handler ran");
        assert!(state == "FAILURE" || state == "REPROMPT", "{what}: {state}");
        assert_eq!(hits.load(Ordering::SeqCst), 1, "{what}: asked once");
        let line = lines.lock().unwrap().last().cloned().unwrap();
        assert_eq!(line["effect"], "deny", "{what}: {line}");
    }
}

#[tokio::test]
async fn what_cannot_go_into_a_header_is_refused_without_asking() {
    let hits = Arc::new(AtomicUsize::new(0));
    let url = answering(200, &[], "{}".into(), Arc::clone(&hits)).await;
    let (guard, lines) = guard(&url);
    for (session, token) in [
        ("s-1\r\nX-Registry-Principal: forged", TOKEN.to_owned()),
        ("s-1", format!("{TOKEN}\r\nX-Registry-Session: other")),
        ("s-1", "\u{0}".to_owned()),
    ] {
        let (state, ran) = call(&guard, &event(session, json!({"registryPrincipal": token}))).await;
        assert!(!ran, "{session:?} {token:?}");
        assert_eq!(state, "FAILURE", "{session:?} {token:?}");
        let line = lines.lock().unwrap().last().cloned().unwrap();
        assert_eq!(line["effect"], "deny");
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0, "nothing sent");
}
