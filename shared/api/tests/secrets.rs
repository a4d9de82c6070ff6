#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `clientSecret` is write-only: never in a response body, never in a log line.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use common::{mcp_tool_json, start};
use reqwest::{Method, StatusCode};
use serde_json::json;

/// Collects everything the tracing subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const SECRET: &str = "s3cr3t-do-not-leak";

#[tokio::test]
async fn client_secret_never_appears_in_responses_or_logs() {
    let logs = Captured::default();
    let writer = logs.clone();
    // Everything at trace, through the filter the binaries use: an operator turning on
    // RUST_LOG=trace must still not see secrets (the AWS SDK logs item bodies at trace).
    tracing_subscriber::fmt()
        .with_env_filter(registry_api::telemetry::cap_body_logging(
            tracing_subscriber::EnvFilter::new("trace"),
        ))
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .init();

    let s = start().await;
    let mut bodies = Vec::new();
    let created =
        s.send(s.req(Method::POST, "/tools", &s.editor).json(&mcp_tool_json("m1", SECRET))).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    assert_eq!(created.body["auth"]["clientId"], "registry");
    assert!(created.body["auth"].get("clientSecret").is_none());
    bodies.push(created.text);

    // Replace without clientSecret keeps the stored one (the store still has it).
    let mut replace = mcp_tool_json("m1", SECRET);
    replace["auth"].as_object_mut().unwrap().remove("clientSecret");
    replace["description"] = json!("Forecast, replaced.");
    let put = s.send(s.req(Method::PUT, "/tools/m1", &s.editor).json(&replace)).await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.text);
    assert_eq!(put.body["version"], 2);
    bodies.push(put.text);
    // The same PUT without the secret is unchanged content: no new version.
    let again = s.send(s.req(Method::PUT, "/tools/m1", &s.editor).json(&replace)).await;
    assert_eq!(again.body["version"], 2, "{}", again.text);
    bodies.push(again.text);
    // A patch that keeps the destination keeps the secret too.
    let patched = s
        .send(
            s.req(Method::PATCH, "/tools/m1", &s.editor)
                .header("if-match", "\"2\"")
                .json(&json!({"description": "Patched.", "auth": {"clientId": "registry"}})),
        )
        .await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text);
    bodies.push(patched.text);
    let stored: registry_core::ToolDefinition =
        match s.registry.store().get(registry_core::Kind::Tool, "m1").await.unwrap() {
            Some(registry_core::Definition::Tool(t)) => t,
            other => panic!("unexpected {other:?}"),
        };
    assert_eq!(stored.auth.unwrap().client_secret.unwrap().expose(), SECRET);

    // A bad request echoing the secret.
    let mut bad = mcp_tool_json("m2", SECRET);
    bad["description"] = json!("");
    bodies.push(s.send(s.req(Method::POST, "/tools", &s.editor).json(&bad)).await.text);
    for path in [
        "/tools/m1",
        "/tools",
        "/tools/m1/versions",
        "/tools/m1/versions/1",
        "/tools/m1/versions/3",
    ] {
        let r = s.get(path).await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
        bodies.push(r.text);
    }
    for body in &bodies {
        assert!(!body.contains(SECRET), "secret in a response: {body}");
    }
    let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(logged.contains("request finished"), "no request log captured");
    assert!(logged.contains("principal=eve-editor"), "principal not logged: {logged}");
    assert!(logged.contains("route=/tools/{id}"), "route not logged: {logged}");
    assert!(
        !logged.contains(SECRET),
        "secret in the log: {}",
        logged.lines().filter(|l| l.contains(SECRET)).collect::<Vec<_>>().join("\n")
    );
}

/// Changing where the secret goes (`url`, `auth.tokenUrl`, `auth.clientId`) needs the
/// secret in the same request: otherwise an editor who cannot read it could send it to
/// a token endpoint of their own. A refused change leaves the stored tool as it was.
#[tokio::test]
async fn a_new_destination_needs_the_secret_again() {
    let s = start().await;
    let created =
        s.send(s.req(Method::POST, "/tools", &s.editor).json(&mcp_tool_json("m1", SECRET))).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let without_secret = |path: &str, value: &str| {
        let mut body = mcp_tool_json("m1", SECRET);
        body["auth"].as_object_mut().unwrap().remove("clientSecret");
        *body.pointer_mut(path).unwrap() = json!(value);
        body
    };
    for (path, value) in [
        ("/url", "https://evil.example.com/mcp"),
        ("/auth/tokenUrl", "https://evil.example.com/token"),
        ("/auth/clientId", "attacker"),
    ] {
        let put = s
            .send(s.req(Method::PUT, "/tools/m1", &s.editor).json(&without_secret(path, value)))
            .await;
        put.assert_problem(400, "VALIDATION_FAILED");
        assert!(
            put.error_paths().contains(&"/auth/clientSecret".to_owned()),
            "{path}: {}",
            put.text
        );
    }
    for patch in [
        json!({"url": "https://evil.example.com/mcp"}),
        json!({"auth": {"tokenUrl": "https://evil.example.com/token"}}),
        json!({"auth": {"clientId": "attacker"}}),
    ] {
        let r = s
            .send(
                s.req(Method::PATCH, "/tools/m1", &s.editor)
                    .header("if-match", "\"1\"")
                    .json(&patch),
            )
            .await;
        r.assert_problem(400, "VALIDATION_FAILED");
        assert_eq!(r.error_paths(), vec!["/auth/clientSecret".to_owned()], "{patch}: {}", r.text);
    }
    assert_eq!(s.get("/tools/m1").await.body["version"], 1, "a refused change wrote nothing");

    // With the secret in the same request, the move is fine.
    let moved = s
        .send(s.req(Method::PATCH, "/tools/m1", &s.editor).header("if-match", "\"1\"").json(
            &json!({"auth": {"tokenUrl": "https://auth2.example.com/token", "clientSecret": "new-one"}}),
        ))
        .await;
    assert_eq!(moved.status, StatusCode::OK, "{}", moved.text);
    let stored = match s.registry.store().get(registry_core::Kind::Tool, "m1").await.unwrap() {
        Some(registry_core::Definition::Tool(t)) => t,
        other => panic!("unexpected {other:?}"),
    };
    assert_eq!(stored.auth.unwrap().client_secret.unwrap().expose(), "new-one");
}
