//! DynamoDB calls per store operation, exactly as the access-pattern table in
//! `docs/dynamodb.md` documents them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use registry_core::{ExecutionType, Kind, LifecycleStatus};
use registry_store::contract::sample::{
    agent, description, tool, tool_from, tool_json, with_description,
};
use registry_store::{Expected, ListFilter, ListQuery, Store, StoreError, TagFilter};
use registry_store_dynamodb::{DecodeCounts, DynamoStore};
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
        assert_eq!(c, expect(&[("GetItem", 2), ("TransactWriteItems", 1)]), "create tool");
    }
    let refs: Vec<&str> = tool_ids.iter().map(String::as_str).collect();
    let (r, c) = calls(&store, store.put(agent("agent-1", &refs), Expected::Absent)).await;
    r.expect("create agent with 20 tools");
    assert_eq!(c, expect(&[("GetItem", 2), ("TransactWriteItems", 1)]), "create agent");

    // Resolution: the agent and its 20 tools in 2 round trips.
    store.reset_calls();
    let got = store.get(Kind::Agent, "agent-1").await.expect("get").expect("agent");
    let ids = got.references();
    let tools = store.get_many(Kind::Tool, &ids).await.expect("get_many");
    assert!(tools.iter().all(Option::is_some));
    assert_eq!(tools.len(), 20);
    assert_eq!(store.calls(), expect(&[("BatchGetItem", 1), ("GetItem", 1)]), "agent + 20 tools");
    assert_eq!(store.calls().values().sum::<u64>(), 2);
    assert_eq!(store.decode_counts(), DecodeCounts { decoded: 21, reused: 0 }, "cold resolve");

    // The same resolution with a warm cache: the same 2 round trips (every read still
    // asks DynamoDB), no document decoded again.
    store.reset_calls();
    let warm = store.get(Kind::Agent, "agent-1").await.expect("get").expect("agent");
    let warm_tools = store.get_many(Kind::Tool, &warm.references()).await.expect("get_many");
    assert_eq!((&warm, &warm_tools), (&got, &tools), "a cached read answers the same");
    assert_eq!(store.calls(), expect(&[("BatchGetItem", 1), ("GetItem", 1)]), "warm resolve");
    assert_eq!(store.decode_counts(), DecodeCounts { decoded: 0, reused: 21 }, "warm resolve");

    let (r, c) =
        calls(&store, store.put(agent("agent-1", &refs[..19]), Expected::Version(1))).await;
    r.expect("update agent");
    assert_eq!(c, expect(&[("GetItem", 2), ("TransactWriteItems", 1)]), "update agent");

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
    assert_eq!(c, expect(&[("GetItem", 2), ("Query", 1)]), "refused tool delete");
    let (r, c) = calls(&store, store.put(tool("tool-00"), Expected::Version(7))).await;
    assert!(matches!(r, Err(StoreError::VersionMismatch { .. })), "{r:?}");
    assert_eq!(c, expect(&[("GetItem", 2)]), "stale put");
    let (r, c) = calls(&store, store.delete(Kind::Agent, "agent-1", 2)).await;
    r.expect("delete agent");
    assert_eq!(c, expect(&[("GetItem", 2), ("TransactWriteItems", 1)]), "delete agent");
    let (r, c) = calls(&store, store.delete(Kind::Tool, "tool-00", 1)).await;
    r.expect("delete unused tool");
    assert_eq!(c, expect(&[("GetItem", 2), ("TransactWriteItems", 1)]), "delete tool");

    // get_many: one BatchGetItem per 100 distinct ids.
    let many: Vec<String> = (0..250).map(|n| format!("tool-{n:02}")).collect();
    let (r, c) = calls(&store, store.get_many(Kind::Tool, &many)).await;
    assert_eq!(r.expect("get_many").iter().filter(|d| d.is_some()).count(), 19);
    assert_eq!(c, expect(&[("BatchGetItem", 3)]), "get_many of 250");
}

/// Two instances on one table (two Lambda containers): each caches what it decoded, and
/// each still sees every write made through the other on its next read, at the same
/// number of round trips.
#[tokio::test]
async fn a_write_through_one_instance_is_seen_by_the_others_next_read() {
    let a = common::store().await;
    let b = registry_store_dynamodb::local::another_instance(&a).await.unwrap();
    let get = |store: &DynamoStore| {
        let store = store.clone();
        async move {
            store.reset_calls();
            let got = store.get(Kind::Tool, "t1").await.expect("get");
            assert_eq!(store.calls(), expect(&[("GetItem", 1)]), "one round trip per read");
            (got, store.decode_counts())
        }
    };
    let reused = DecodeCounts { decoded: 0, reused: 1 };
    let decoded = DecodeCounts { decoded: 1, reused: 0 };

    a.put(with_description(tool("t1"), "first"), Expected::Absent).await.expect("create");
    let (got, counts) = get(&b).await;
    assert_eq!(description(&got.expect("t1")), "first");
    assert_eq!(counts, decoded);
    let (_, counts) = get(&b).await;
    assert_eq!(counts, reused, "b's cache is warm");

    // Updated through a: b's next read has the new version, decoded once.
    a.put(with_description(tool("t1"), "second"), Expected::Version(1)).await.expect("update");
    let (got, counts) = get(&b).await;
    let got = got.expect("t1");
    assert_eq!((got.version(), description(&got)), (2, "second"));
    assert_eq!(counts, decoded);

    // Deleted through a: b answers None at once, though it cached version 2.
    a.delete(Kind::Tool, "t1", 2).await.expect("delete");
    let (got, counts) = get(&b).await;
    assert!(got.is_none(), "{got:?}");
    assert_eq!(counts, DecodeCounts::default());

    // Recreated through a: version 3 with the new content.
    a.put(with_description(tool("t1"), "third"), Expected::Absent).await.expect("recreate");
    let (got, _) = get(&b).await;
    let got = got.expect("t1");
    assert_eq!((got.version(), description(&got)), (3, "third"));

    // The head rewritten at the same version with other content (what restoring a backup
    // into a recreated table can do): the cache is keyed by version but checked against
    // the stored text, so b decodes the new text instead of answering from its cache.
    let (_, counts) = get(&b).await;
    assert_eq!(counts, reused);
    let head = a
        .client()
        .get_item()
        .table_name(a.table())
        .key("pk", AttributeValue::S("TOOL#t1".into()))
        .key("sk", AttributeValue::S("HEAD".into()))
        .send()
        .await
        .expect("raw read")
        .item
        .expect("head");
    let doc = head.get("doc").and_then(|d| d.as_s().ok()).expect("doc");
    assert!(doc.contains("third"), "{doc}");
    let mut rewritten = head.clone();
    rewritten.insert("doc".into(), AttributeValue::S(doc.replace("third", "fourth")));
    a.client()
        .put_item()
        .table_name(a.table())
        .set_item(Some(rewritten))
        .send()
        .await
        .expect("raw write");
    let (got, counts) = get(&b).await;
    assert_eq!(description(&got.expect("t1")), "fourth");
    assert_eq!(counts, decoded);
}

/// Every read path decodes through the cache: point reads, batches, lists, histories,
/// versions; a version snapshot and the head at that version share one entry.
#[tokio::test]
async fn every_read_path_reuses_decoded_definitions() {
    let store = common::store().await;
    for id in ["t1", "t2"] {
        store.put(tool(id), Expected::Absent).await.expect("create");
    }
    store.reset_calls();
    let ids = ["t1".to_owned(), "t2".to_owned()];
    store.get_many(Kind::Tool, &ids).await.expect("get_many");
    assert_eq!(store.decode_counts(), DecodeCounts { decoded: 2, reused: 0 });
    store.reset_calls();
    store.get(Kind::Tool, "t1").await.expect("get");
    store.version(Kind::Tool, "t2", 1).await.expect("version");
    store.versions(Kind::Tool, "t1", &ListQuery::default()).await.expect("versions");
    store.get_many(Kind::Tool, &ids).await.expect("get_many");
    assert_eq!(store.decode_counts(), DecodeCounts { decoded: 0, reused: 5 });

    // Off: the same requests, every document decoded.
    let off = store.clone().with_decoded_cache(0, 0);
    off.reset_calls();
    off.get_many(Kind::Tool, &ids).await.expect("get_many");
    off.get_many(Kind::Tool, &ids).await.expect("get_many");
    assert_eq!(off.decode_counts(), DecodeCounts { decoded: 4, reused: 0 });
    assert_eq!(off.calls(), expect(&[("BatchGetItem", 2)]));
}
