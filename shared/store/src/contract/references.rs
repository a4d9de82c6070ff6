//! Agent -> tool references: integrity on write and the reverse lookup.

use std::sync::Arc;

use registry_core::{Kind, LifecycleStatus};
use serde_json::json;

use super::sample::{agent, agent_from, agent_json, tool, with_status};
use crate::{Expected, Store, StoreError};

/// An agent may only reference live tools that are not retired; nothing is written
/// otherwise. Deprecated and disabled tools are fine.
pub async fn bad_references_are_refused(store: Arc<dyn Store>) {
    store.put(tool("live"), Expected::Absent).await.expect("tool");
    store
        .put(with_status(tool("old"), LifecycleStatus::Retired), Expected::Absent)
        .await
        .expect("retired");
    store
        .put(with_status(tool("dep"), LifecycleStatus::Deprecated), Expected::Absent)
        .await
        .expect("deprecated");
    store
        .put(with_status(tool("off"), LifecycleStatus::Disabled), Expected::Absent)
        .await
        .expect("disabled");
    store.put(tool("gone"), Expected::Absent).await.expect("tool");
    store.delete(Kind::Tool, "gone", 1).await.expect("delete");

    let bad = agent("a1", &["live", "old", "missing-b", "gone", "missing-a"]);
    let err = store.put(bad, Expected::Absent).await.expect_err("bad references");
    match err {
        StoreError::BadReferences { missing, retired } => {
            assert_eq!(missing, ["gone", "missing-a", "missing-b"]);
            assert_eq!(retired, ["old"]);
        }
        other => panic!("expected BadReferences, got {other:?}"),
    }
    assert!(store.get(Kind::Agent, "a1").await.expect("get").is_none(), "nothing written");

    let ok = store.put(agent("a1", &["live", "dep", "off"]), Expected::Absent).await.expect("ok");
    let err =
        store.put(agent("a1", &["live", "old"]), Expected::Version(1)).await.expect_err("update");
    assert!(matches!(err, StoreError::BadReferences { .. }), "got {err:?}");
    assert_eq!(store.get(Kind::Agent, "a1").await.expect("get"), Some(ok));
}

/// `rolloutPolicy.toolOverrides` targets must exist too, and count as uses of the tool.
pub async fn tool_overrides_are_references(store: Arc<dyn Store>) {
    store.put(tool("weather-basic"), Expected::Absent).await.expect("tool");
    let mut value = agent_json("a1", &["weather-basic"]);
    value["rolloutPolicy"] = json!({ "toolOverrides": { "weather-basic@1": "weather-pro" } });
    let err = store.put(agent_from(value.clone()), Expected::Absent).await.expect_err("missing");
    match err {
        StoreError::BadReferences { missing, retired } => {
            assert_eq!(missing, ["weather-pro"]);
            assert!(retired.is_empty());
        }
        other => panic!("expected BadReferences, got {other:?}"),
    }

    store.put(tool("weather-pro"), Expected::Absent).await.expect("tool");
    store.put(agent_from(value), Expected::Absent).await.expect("agent");
    assert_eq!(store.referrers("weather-pro").await.expect("referrers"), ["a1"]);
    let err = store.delete(Kind::Tool, "weather-pro", 1).await.expect_err("in use");
    assert!(matches!(err, StoreError::InUse { ref agents } if agents == &["a1"]), "got {err:?}");
}

/// `referrers` lists the live agents using a tool, sorted, following updates and deletes.
pub async fn referrers_are_live_agents(store: Arc<dyn Store>) {
    store.put(tool("t1"), Expected::Absent).await.expect("tool");
    store.put(tool("t2"), Expected::Absent).await.expect("tool");
    assert!(store.referrers("t1").await.expect("none yet").is_empty());
    assert!(store.referrers("never").await.expect("unknown tool").is_empty());

    store.put(agent("b", &["t1"]), Expected::Absent).await.expect("agent");
    store.put(agent("a", &["t1", "t2"]), Expected::Absent).await.expect("agent");
    store.put(agent("c", &["t2"]), Expected::Absent).await.expect("agent");
    assert_eq!(store.referrers("t1").await.expect("t1"), ["a", "b"]);
    assert_eq!(store.referrers("t2").await.expect("t2"), ["a", "c"]);

    store.put(agent("a", &["t2"]), Expected::Version(1)).await.expect("update a");
    assert_eq!(store.referrers("t1").await.expect("t1"), ["b"]);
    store.delete(Kind::Agent, "c", 1).await.expect("delete c");
    assert_eq!(store.referrers("t2").await.expect("t2"), ["a"]);
    store.put(agent("c", &["t1"]), Expected::Absent).await.expect("re-create c");
    assert_eq!(store.referrers("t1").await.expect("t1"), ["b", "c"]);
}

/// `get_with_references_shared` gives the live head with the live heads of its tools, in
/// the order of `references`, and follows writes made since the last read.
pub async fn heads_come_with_their_references(store: Arc<dyn Store>) {
    store.put(tool("t1"), Expected::Absent).await.expect("tool");
    store.put(tool("t2"), Expected::Absent).await.expect("tool");
    store.put(agent("a", &["t2", "t1"]), Expected::Absent).await.expect("agent");
    assert!(store.get_with_references_shared(Kind::Agent, "none").await.expect("none").is_none());

    let got = store.get_with_references_shared(Kind::Agent, "a").await.expect("read").expect("a");
    assert_eq!(got.head.id(), "a");
    assert_eq!(got.references, ["t1", "t2"]);
    let ids: Vec<_> = got.tools.iter().map(|t| t.as_ref().map(|t| t.id().to_owned())).collect();
    assert_eq!(ids, [Some("t1".to_owned()), Some("t2".to_owned())]);

    // a tool changed and the agent changed: both are seen on the next read
    let t1 = store.get(Kind::Tool, "t1").await.expect("t1").expect("live");
    let t1 = store.put(t1, Expected::Version(1)).await.expect("t1 v2");
    store.put(agent("a", &["t1"]), Expected::Version(1)).await.expect("agent v2");
    let got = store.get_with_references_shared(Kind::Agent, "a").await.expect("read").expect("a");
    assert_eq!(got.head.version(), 2);
    assert_eq!(got.references, ["t1"]);
    assert_eq!(got.tools.len(), 1);
    assert_eq!(got.tools[0].as_deref(), Some(&t1));

    // a tool is its own head, with no references
    let got = store.get_with_references_shared(Kind::Tool, "t2").await.expect("read").expect("t2");
    assert!(got.references.is_empty() && got.tools.is_empty());
    store.delete(Kind::Agent, "a", 2).await.expect("delete");
    assert!(store.get_with_references_shared(Kind::Agent, "a").await.expect("gone").is_none());
}
