//! Deletes, tombstones and the tool-in-use rule.

use std::sync::Arc;

use registry_core::{Kind, LifecycleStatus};

use super::sample::{agent, tool, with_description, with_status};
use crate::{Expected, ListQuery, Store, StoreError};

/// A delete hides the definition but keeps its history; a re-create continues the
/// version numbers instead of reusing them.
pub async fn delete_leaves_tombstone(store: Arc<dyn Store>) {
    store.put(tool("t1"), Expected::Absent).await.expect("create");
    store.put(tool("keep"), Expected::Absent).await.expect("create other");
    let v2 = store.put(with_description(tool("t1"), "v2"), Expected::Version(1)).await.expect("v2");

    let err = store.delete(Kind::Tool, "t1", 1).await.expect_err("stale delete");
    assert!(
        matches!(err, StoreError::VersionMismatch { expected: 1, current: Some(2) }),
        "got {err:?}"
    );
    assert!(store.get(Kind::Tool, "t1").await.expect("get").is_some(), "refused delete kept it");

    store.delete(Kind::Tool, "t1", 2).await.expect("delete");
    assert!(store.get(Kind::Tool, "t1").await.expect("get").is_none());
    let many = store.get_many(Kind::Tool, &["t1".into(), "keep".into()]).await.expect("many");
    assert!(many[0].is_none() && many[1].is_some());
    let listed = store.list(Kind::Tool, &ListQuery::default()).await.expect("list");
    assert_eq!(super::sample::ids(&listed.items), ["keep"]);
    assert_eq!(store.version(Kind::Tool, "t1", 2).await.expect("snapshot"), Some(v2.clone()));

    let err = store.delete(Kind::Tool, "t1", 2).await.expect_err("second delete");
    assert!(matches!(err, StoreError::NotFound), "got {err:?}");
    let err = store.delete(Kind::Tool, "never", 1).await.expect_err("never existed");
    assert!(matches!(err, StoreError::NotFound), "got {err:?}");
    let err = store.put(tool("t1"), Expected::Version(2)).await.expect_err("update deleted");
    assert!(
        matches!(err, StoreError::VersionMismatch { expected: 2, current: None }),
        "got {err:?}"
    );

    let again = store.put(tool("t1"), Expected::Absent).await.expect("re-create");
    assert!(again.version() > 2, "version numbers are never reused, got {}", again.version());
    assert_eq!(store.get(Kind::Tool, "t1").await.expect("get"), Some(again.clone()));
    assert_eq!(store.version(Kind::Tool, "t1", 2).await.expect("old snapshot"), Some(v2));
    let history = store.versions(Kind::Tool, "t1", &ListQuery::default()).await.expect("history");
    let numbers: Vec<u64> = history.items.iter().map(|d| d.version()).collect();
    assert_eq!(numbers, [1, 2, again.version()]);
}

/// A tool referenced by live agents cannot be deleted; the error names the agents.
pub async fn tool_in_use_is_refused(store: Arc<dyn Store>) {
    store.put(tool("t1"), Expected::Absent).await.expect("tool");
    store.put(tool("t2"), Expected::Absent).await.expect("tool");
    store.put(agent("zeta", &["t1"]), Expected::Absent).await.expect("agent");
    store.put(agent("alpha", &["t2", "t1"]), Expected::Absent).await.expect("agent");
    store.put(agent("other", &["t2"]), Expected::Absent).await.expect("agent");

    let err = store.delete(Kind::Tool, "t1", 1).await.expect_err("in use");
    match err {
        StoreError::InUse { agents } => assert_eq!(agents, ["alpha", "zeta"]),
        other => panic!("expected InUse, got {other:?}"),
    }
    assert!(store.get(Kind::Tool, "t1").await.expect("get").is_some());

    store.put(agent("zeta", &[]), Expected::Version(1)).await.expect("drop t1 from zeta");
    store.delete(Kind::Agent, "alpha", 1).await.expect("delete alpha");
    store.delete(Kind::Tool, "t1", 1).await.expect("no longer in use");
}

/// A retired tool can be deleted even while agents still reference it.
pub async fn retired_tool_can_be_deleted(store: Arc<dyn Store>) {
    store.put(tool("t1"), Expected::Absent).await.expect("tool");
    store.put(agent("a1", &["t1"]), Expected::Absent).await.expect("agent");
    store
        .put(with_status(tool("t1"), LifecycleStatus::Deprecated), Expected::Version(1))
        .await
        .expect("deprecate");
    let err = store.delete(Kind::Tool, "t1", 2).await.expect_err("deprecated is still in use");
    assert!(matches!(err, StoreError::InUse { .. }), "got {err:?}");
    store
        .put(with_status(tool("t1"), LifecycleStatus::Retired), Expected::Version(2))
        .await
        .expect("retire");
    store.delete(Kind::Tool, "t1", 3).await.expect("retired tool deletes");
    assert!(store.get(Kind::Tool, "t1").await.expect("get").is_none());
}
