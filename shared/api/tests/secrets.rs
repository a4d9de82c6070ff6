#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `clientSecret` is write-only: never in a response body, never in a log line.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use common::{mcp_tool_json, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

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
        .patch(
            "/tools/m1",
            &s.editor,
            "\"2\"",
            &json!({"description": "Patched.", "auth": {"clientId": "registry"}}),
        )
        .await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text);
    bodies.push(patched.text);
    // The store keeps a version marker; the vault the value.
    let stored: registry_core::ToolDefinition =
        match s.registry.catalog.store().get(registry_core::Kind::Tool, "m1").await.unwrap() {
            Some(registry_core::Definition::Tool(t)) => t,
            other => panic!("unexpected {other:?}"),
        };
    let auth = stored.auth.unwrap();
    assert!(auth.client_secret.is_none());
    let handle = registry_api::vault::SecretHandle {
        version: auth.secret_version.clone().unwrap(),
        arn: None,
    };
    let kept = s.registry.catalog.vault().get("m1", &handle).await.unwrap().unwrap();
    assert_eq!(kept.expose(), SECRET);

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
        let r = s.patch("/tools/m1", &s.editor, "\"1\"", &patch).await;
        r.assert_problem(400, "VALIDATION_FAILED");
        assert_eq!(r.error_paths(), vec!["/auth/clientSecret".to_owned()], "{patch}: {}", r.text);
    }
    assert_eq!(s.get("/tools/m1").await.body["version"], 1, "a refused change wrote nothing");

    // With the secret in the same request, the move is fine.
    let moved = s.patch("/tools/m1", &s.editor, "\"1\"", &json!({"auth": {"tokenUrl": "https://auth2.example.com/token", "clientSecret": "new-one"}}),)
        .await;
    assert_eq!(moved.status, StatusCode::OK, "{}", moved.text);
    let stored =
        match s.registry.catalog.store().get(registry_core::Kind::Tool, "m1").await.unwrap() {
            Some(registry_core::Definition::Tool(t)) => t,
            other => panic!("unexpected {other:?}"),
        };
    let auth = stored.auth.unwrap();
    let handle =
        registry_api::vault::SecretHandle { version: auth.secret_version.unwrap(), arn: None };
    assert_eq!(
        s.registry.catalog.vault().get("m1", &handle).await.unwrap().unwrap().expose(),
        "new-one"
    );
}

/// Every file under `dir`, read as bytes (`grep -a` over the data directory).
fn files_containing(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path)
                && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
            {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

/// Create with S1, rotate to S2, remove the `auth` block: neither value is anywhere in
/// the data directory (store, its WAL, tokens, vault), in any revision or response; the
/// revisions record only that the secret changed (a new `secretVersion`).
#[tokio::test]
async fn rotated_and_removed_secrets_are_nowhere_in_the_data_directory() {
    const S1: &str = "first-secret-value-S1-7f3a";
    const S2: &str = "second-secret-value-S2-9c1b";
    let s = start().await;
    let mut bodies = Vec::new();
    let created =
        s.send(s.req(Method::POST, "/tools", &s.editor).json(&mcp_tool_json("m1", S1))).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let v1 = created.body["auth"]["secretVersion"].as_str().unwrap().to_owned();
    bodies.push(created.text);
    // S1 is kept, encrypted: not in any file.
    assert_eq!(files_containing(s.dir.path(), S1), Vec::<String>::new());
    let rotated =
        s.patch("/tools/m1", &s.editor, "\"1\"", &json!({"auth": {"clientSecret": S2}})).await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.text);
    let v2 = rotated.body["auth"]["secretVersion"].as_str().unwrap().to_owned();
    assert_ne!(v1, v2, "a new value is a new version");
    bodies.push(rotated.text);
    // The old version is gone from the vault, the new one readable.
    let handle = |version: &str| registry_api::vault::SecretHandle {
        version: version.to_owned(),
        arn: None,
    };
    assert!(s.registry.catalog.vault().get("m1", &handle(&v1)).await.unwrap().is_none());
    assert_eq!(
        s.registry.catalog.vault().get("m1", &handle(&v2)).await.unwrap().unwrap().expose(),
        S2
    );
    // The same value again is no change.
    let again =
        s.patch("/tools/m1", &s.editor, "\"2\"", &json!({"auth": {"clientSecret": S2}})).await;
    assert_eq!(again.body["version"], 2, "{}", again.text);
    let removed = s.patch("/tools/m1", &s.editor, "\"2\"", &json!({"auth": null})).await;
    assert_eq!(removed.status, StatusCode::OK, "{}", removed.text);
    assert!(removed.body.get("auth").is_none());
    bodies.push(removed.text);
    assert!(s.registry.catalog.vault().get("m1", &handle(&v2)).await.unwrap().is_none());
    for v in 1..=3 {
        let r = s.get(&format!("/tools/m1/versions/{v}")).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        bodies.push(r.text);
    }
    for secret in [S1, S2] {
        assert_eq!(files_containing(s.dir.path(), secret), Vec::<String>::new(), "{secret}");
        for body in &bodies {
            assert!(!body.contains(secret), "{secret} in a response: {body}");
        }
    }
    // The revisions record that the secret changed, and nothing of it.
    let history = s.get("/tools/m1/versions").await;
    let markers: Vec<&Value> = history.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["auth"]["secretVersion"])
        .collect();
    assert_eq!(markers, vec![&json!(v1), &json!(v2), &Value::Null]);
}

/// A secret given by reference (`auth.clientSecretRef`, a Secrets Manager ARN) is
/// checked and kept as given; nothing goes to the vault. Both forms at once, or a
/// reference that is not a secret ARN, is refused at its pointer.
#[tokio::test]
async fn a_secret_given_by_reference_is_checked_and_never_copied() {
    let s = start().await;
    let arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:mcp/forecast-AbCdEf";
    let mut tool = mcp_tool_json("m1", "unused");
    tool["auth"].as_object_mut().unwrap().remove("clientSecret");
    tool["auth"]["clientSecretRef"] = json!(arn);
    let created = s.send(s.req(Method::POST, "/tools", &s.editor).json(&tool)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    assert_eq!(created.body["auth"]["clientSecretRef"], arn);
    assert!(created.body["auth"].get("secretVersion").is_none());
    let vault = std::fs::read_to_string(s.dir.path().join("secrets.json")).unwrap_or_default();
    assert!(!vault.contains("\"m1\""), "{vault}");
    // Both a value and a reference; a reference that is not a Secrets Manager ARN.
    for (id, field, value) in [
        ("m2", "clientSecret", "also-a-value"),
        ("m3", "clientSecretRef", "arn:aws:s3:::bucket/key"),
    ] {
        let mut bad = tool.clone();
        bad["toolId"] = json!(id);
        bad["auth"][field] = json!(value);
        s.send(s.req(Method::POST, "/tools", &s.editor).json(&bad))
            .await
            .assert_invalid_at("/auth/clientSecretRef");
    }
}
