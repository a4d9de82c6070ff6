#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The write path retries in one place: a write that follows the current version
//! makes at most `WRITE_ATTEMPTS` store writes against a store where every write loses
//! its race (once the route's loop around the service's made that 64), and a write
//! naming a version makes one.

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use common::spy::Spy;
use common::tool_json;
use registry_api::service::{Precondition, WRITE_ATTEMPTS};
use registry_api::{AppState, Principal, Registry, Role, ServiceError, TokenFile, router};
use registry_core::{Definition, ToolDefinition};
use registry_store::{Expected, Store};
use serde_json::json;
use tower::ServiceExt;

/// A losing store in `dir` holding the tool `t1` at version 1.
async fn losing(dir: &std::path::Path) -> (Arc<Spy>, ToolDefinition) {
    let store = Spy::open(dir, true);
    let tool: ToolDefinition = serde_json::from_value(tool_json("t1")).unwrap();
    store.inner.put(Definition::Tool(tool.clone()), Expected::Absent).await.unwrap();
    (store, tool)
}

#[tokio::test]
async fn a_request_that_follows_the_current_version_makes_eight_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let (store, tool) = losing(dir.path()).await;
    let (auth, admin) = TokenFile::load_or_init(dir.path(), None).unwrap();
    let app = router(AppState::new(Registry::new(store.clone()), Arc::new(auth)));
    let send = |method: &str, if_match: Option<&str>, body: String| {
        let mut request = http::Request::builder()
            .method(method)
            .uri("/tools/t1")
            .header("authorization", format!("Bearer {}", admin.clone().unwrap()))
            .header("content-type", "application/json");
        if let Some(tag) = if_match {
            request = request.header("if-match", tag);
        }
        app.clone().oneshot(request.body(axum::body::Body::from(body)).unwrap())
    };
    let body = serde_json::to_string(&json!({"description": "Changed."})).unwrap();
    let mut replace = serde_json::to_value(&tool).unwrap();
    replace["description"] = json!("Changed.");
    let replace = replace.to_string();
    for (method, if_match, body, status) in [
        ("PUT", None, &replace, 409),
        ("PUT", Some("*"), &replace, 412),
        ("PATCH", Some("*"), &body, 412),
        ("DELETE", Some("*"), &String::new(), 412),
    ] {
        let response = send(method, if_match, body.clone()).await.unwrap();
        assert_eq!(response.status().as_u16(), status, "{method} {if_match:?}");
        let writes = store.writes.swap(0, Ordering::SeqCst);
        assert_eq!(writes, WRITE_ATTEMPTS, "{method} {if_match:?}");
    }
}

#[tokio::test]
async fn a_write_makes_at_most_eight_attempts_and_one_when_it_names_a_version() {
    let dir = tempfile::tempdir().unwrap();
    let (store, tool) = losing(dir.path()).await;
    let registry = Registry::new(store.clone());
    let admin = Principal::new("admin", Role::Admin);
    let mut changed = tool.clone();
    changed.description = "Changed.".into();
    let writes = || store.writes.swap(0, Ordering::SeqCst);

    let r = registry.catalog.apply(&admin, "t1", changed.clone(), None, None).await;
    assert_eq!(r, Err(ServiceError::Contention));
    assert_eq!((WRITE_ATTEMPTS, writes()), (8, 8), "PUT without If-Match");

    let r =
        registry.catalog.apply(&admin, "t1", changed.clone(), Precondition::Current, None).await;
    assert!(matches!(r, Err(ServiceError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(writes(), WRITE_ATTEMPTS, "PUT with If-Match: *");

    let r = registry.catalog.apply(&admin, "t1", changed, Some(1), None).await;
    assert!(matches!(r, Err(ServiceError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(writes(), 1, "PUT with If-Match: \"1\"");

    let patch = json!({"description": "Patched."});
    let r = registry
        .catalog
        .patch::<ToolDefinition>(&admin, "t1", &patch, Precondition::Current, None)
        .await;
    assert!(matches!(r, Err(ServiceError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(writes(), WRITE_ATTEMPTS, "PATCH with If-Match: *");
    let r = registry.catalog.patch::<ToolDefinition>(&admin, "t1", &patch, 1, None).await;
    assert!(matches!(r, Err(ServiceError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(writes(), 1, "PATCH with a version");

    let r = registry.catalog.delete::<ToolDefinition>(&admin, "t1", Precondition::Current).await;
    assert!(matches!(r, Err(ServiceError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(writes(), WRITE_ATTEMPTS, "DELETE with If-Match: *");
    let r = registry.catalog.delete::<ToolDefinition>(&admin, "t1", 1).await;
    assert!(matches!(r, Err(ServiceError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(writes(), 1, "DELETE with a version");
}
