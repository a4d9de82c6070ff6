#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The write path retries in one place: a write that follows the current version
//! makes at most `WRITE_ATTEMPTS` store writes against a store where every write loses
//! its race (once the route's loop around the service's made that 64), and a write
//! naming a version makes one.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use common::tool_json;
use registry_api::service::{Precondition, WRITE_ATTEMPTS};
use registry_api::{AppState, Principal, Registry, Role, ServiceError, TokenFile, router};
use registry_core::{Definition, Kind, ToolDefinition};
use registry_store::{Expected, ListQuery, Page, Store, StoreError};
use registry_store_sqlite::SqliteStore;
use serde_json::json;
use tower::ServiceExt;

/// A store whose writes and deletes always find another version than expected.
struct Losing {
    inner: SqliteStore,
    writes: AtomicUsize,
}

impl Losing {
    fn lost(&self, expected: u64) -> StoreError {
        self.writes.fetch_add(1, Ordering::SeqCst);
        StoreError::VersionMismatch { expected, current: Some(expected + 1) }
    }
}

#[async_trait]
impl Store for Losing {
    async fn get(&self, kind: Kind, id: &str) -> Result<Option<Definition>, StoreError> {
        self.inner.get(kind, id).await
    }
    async fn get_many(
        &self,
        kind: Kind,
        ids: &[String],
    ) -> Result<Vec<Option<Definition>>, StoreError> {
        self.inner.get_many(kind, ids).await
    }
    async fn put(&self, _: Definition, expected: Expected) -> Result<Definition, StoreError> {
        Err(self.lost(match expected {
            Expected::Version(v) => v,
            Expected::Absent => 0,
        }))
    }
    async fn delete(&self, _: Kind, _: &str, expected: u64) -> Result<(), StoreError> {
        Err(self.lost(expected))
    }
    async fn list(&self, kind: Kind, query: &ListQuery) -> Result<Page<Definition>, StoreError> {
        self.inner.list(kind, query).await
    }
    async fn versions(
        &self,
        kind: Kind,
        id: &str,
        query: &ListQuery,
    ) -> Result<Page<Definition>, StoreError> {
        self.inner.versions(kind, id, query).await
    }
    async fn version(
        &self,
        kind: Kind,
        id: &str,
        version: u64,
    ) -> Result<Option<Definition>, StoreError> {
        self.inner.version(kind, id, version).await
    }
    async fn referrers(&self, tool_id: &str) -> Result<Vec<String>, StoreError> {
        self.inner.referrers(tool_id).await
    }
}

/// A losing store in `dir` holding the tool `t1` at version 1.
async fn losing(dir: &std::path::Path) -> (Arc<Losing>, ToolDefinition) {
    let store = Arc::new(Losing {
        inner: SqliteStore::open(dir.join("registry.db")).unwrap(),
        writes: AtomicUsize::new(0),
    });
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

    let r = registry.apply(&admin, "t1", changed.clone(), None).await;
    assert_eq!(r, Err(ServiceError::Contention));
    assert_eq!((WRITE_ATTEMPTS, writes()), (8, 8), "PUT without If-Match");

    let r = registry.apply(&admin, "t1", changed.clone(), Precondition::Current).await;
    assert!(matches!(r, Err(ServiceError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(writes(), WRITE_ATTEMPTS, "PUT with If-Match: *");

    let r = registry.apply(&admin, "t1", changed, Some(1)).await;
    assert!(matches!(r, Err(ServiceError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(writes(), 1, "PUT with If-Match: \"1\"");

    let patch = json!({"description": "Patched."});
    let r = registry.patch::<ToolDefinition>(&admin, "t1", &patch, Precondition::Current).await;
    assert!(matches!(r, Err(ServiceError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(writes(), WRITE_ATTEMPTS, "PATCH with If-Match: *");
    let r = registry.patch::<ToolDefinition>(&admin, "t1", &patch, 1).await;
    assert!(matches!(r, Err(ServiceError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(writes(), 1, "PATCH with a version");

    let r = registry.delete::<ToolDefinition>(&admin, "t1", Precondition::Current).await;
    assert!(matches!(r, Err(ServiceError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(writes(), WRITE_ATTEMPTS, "DELETE with If-Match: *");
    let r = registry.delete::<ToolDefinition>(&admin, "t1", 1).await;
    assert!(matches!(r, Err(ServiceError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(writes(), 1, "DELETE with a version");
}
