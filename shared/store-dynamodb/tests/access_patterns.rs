//! DynamoDB calls per store operation, exactly as the access-pattern table in
//! `docs/dynamodb.md` documents them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use registry_core::{ExecutionType, Kind, LifecycleStatus};
use registry_store::contract::sample::{agent, tool, tool_from, tool_json};
use registry_store::{Expected, ListFilter, ListQuery, Store, StoreError, TagFilter};
use registry_store_dynamodb::DynamoStore;
use serde_json::json;

/// Runs `op` and returns the calls it made.
async fn calls<T>(
    store: &DynamoStore,
    op: impl std::future::Future<Output = T>,
) -> (T, BTreeMap<String, u64>) {
    store.reset_calls();
    let out = op.await;
    (out, store.calls())
}

fn expect(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

fn filter(f: impl FnOnce(&mut ListFilter)) -> ListQuery {
    let mut query = ListQuery::default();
    f(&mut query.filter);
    query
}

#[tokio::test]
async fn calls_match_the_access_pattern_table() {
    let store = common::store().await;
    let tool_ids: Vec<String> = (0..20).map(|n| format!("tool-{n:02}")).collect();
    for id in &tool_ids {
        let mut value = tool_json(id);
        value["tags"] = json!({ "team": "weather" });
        value["createdBy"] = json!("alice");
        let (r, c) = calls(&store, store.put(tool_from(value), Expected::Absent)).await;
        r.expect("create tool");
        assert_eq!(c, expect(&[("GetItem", 1), ("TransactWriteItems", 1)]), "create tool");
    }
    let refs: Vec<&str> = tool_ids.iter().map(String::as_str).collect();
    let (r, c) = calls(&store, store.put(agent("agent-1", &refs), Expected::Absent)).await;
    r.expect("create agent with 20 tools");
    assert_eq!(c, expect(&[("GetItem", 1), ("TransactWriteItems", 1)]), "create agent");

    // Resolution: the agent and its 20 tools in 2 round trips.
    store.reset_calls();
    let got = store.get(Kind::Agent, "agent-1").await.expect("get").expect("agent");
    let ids = got.references();
    let tools = store.get_many(Kind::Tool, &ids).await.expect("get_many");
    assert!(tools.iter().all(Option::is_some));
    assert_eq!(tools.len(), 20);
    assert_eq!(store.calls(), expect(&[("BatchGetItem", 1), ("GetItem", 1)]), "agent + 20 tools");
    assert_eq!(store.calls().values().sum::<u64>(), 2);

    let (r, c) =
        calls(&store, store.put(agent("agent-1", &refs[..19]), Expected::Version(1))).await;
    r.expect("update agent");
    assert_eq!(c, expect(&[("GetItem", 1), ("TransactWriteItems", 1)]), "update agent");

    for (name, query) in [
        ("list", ListQuery::default()),
        ("status", filter(|f| f.status = Some(LifecycleStatus::Active))),
        ("executionType", filter(|f| f.execution_type = Some(ExecutionType::Lambda))),
        ("createdBy", filter(|f| f.created_by = Some("alice".into()))),
        (
            "status+createdBy",
            filter(|f| {
                f.status = Some(LifecycleStatus::Active);
                f.created_by = Some("alice".into());
            }),
        ),
    ] {
        let (page, c) = calls(&store, store.list(Kind::Tool, &query)).await;
        assert_eq!(page.expect("list").items.len(), 20, "{name}");
        assert_eq!(c, expect(&[("Query", 1)]), "list by {name}");
    }
    let by_tag =
        filter(|f| f.tag = Some(TagFilter { key: "team".into(), value: Some("weather".into()) }));
    let (page, c) = calls(&store, store.list(Kind::Tool, &by_tag)).await;
    assert_eq!(page.expect("list").items.len(), 20);
    assert_eq!(c, expect(&[("BatchGetItem", 1), ("Query", 1)]), "list by tag");

    let (page, c) =
        calls(&store, store.versions(Kind::Agent, "agent-1", &ListQuery::default())).await;
    assert_eq!(page.expect("versions").items.len(), 2);
    assert_eq!(c, expect(&[("Query", 1)]), "versions");
    let (v, c) = calls(&store, store.version(Kind::Agent, "agent-1", 1)).await;
    assert!(v.expect("version").is_some());
    assert_eq!(c, expect(&[("GetItem", 1)]), "version");
    let (r, c) = calls(&store, store.referrers("tool-00")).await;
    assert_eq!(r.expect("referrers"), ["agent-1"]);
    assert_eq!(c, expect(&[("Query", 1)]), "referrers");

    let (r, c) = calls(&store, store.delete(Kind::Tool, "tool-00", 1)).await;
    assert!(matches!(r, Err(StoreError::InUse { .. })), "{r:?}");
    assert_eq!(c, expect(&[("GetItem", 1), ("Query", 1)]), "refused tool delete");
    let (r, c) = calls(&store, store.put(tool("tool-00"), Expected::Version(7))).await;
    assert!(matches!(r, Err(StoreError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(c, expect(&[("GetItem", 1)]), "stale put");
    let (r, c) = calls(&store, store.delete(Kind::Agent, "agent-1", 2)).await;
    r.expect("delete agent");
    assert_eq!(c, expect(&[("GetItem", 1), ("TransactWriteItems", 1)]), "delete agent");
    let (r, c) = calls(&store, store.delete(Kind::Tool, "tool-00", 1)).await;
    r.expect("delete unused tool");
    assert_eq!(c, expect(&[("GetItem", 1), ("TransactWriteItems", 1)]), "delete tool");

    // get_many: one BatchGetItem per 100 distinct ids.
    let many: Vec<String> = (0..250).map(|n| format!("tool-{n:02}")).collect();
    let (r, c) = calls(&store, store.get_many(Kind::Tool, &many)).await;
    assert_eq!(r.expect("get_many").iter().filter(|d| d.is_some()).count(), 19);
    assert_eq!(c, expect(&[("BatchGetItem", 3)]), "get_many of 250");
}
