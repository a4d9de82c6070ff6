//! DynamoDB-specific checks: the items and indexes the writes produce, key limits,
//! cursors, transaction size.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use registry_core::{Kind, LifecycleStatus};
use registry_store::contract::sample::{agent, tool, tool_from, tool_json, with_status};
use registry_store::{Expected, ListFilter, ListQuery, Store, StoreError, TagFilter};
use registry_store_dynamodb::DynamoStore;
use serde_json::json;

/// Items in `index` (all partitions), via Query per known partition value.
async fn index_ids(store: &DynamoStore, index: &str, attr: &str, value: &str) -> Vec<String> {
    let out = store
        .client()
        .query()
        .table_name(store.table())
        .index_name(index)
        .key_condition_expression("#p = :v")
        .expression_attribute_names("#p", attr)
        .expression_attribute_values(":v", AttributeValue::S(value.into()))
        .send()
        .await
        .expect("query index");
    out.items().iter().map(|i| i["id"].as_s().unwrap().clone()).collect()
}

fn sha(s: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(s.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn every_index_is_populated_and_tombstones_drop_out() {
    let store = common::store().await;
    let mut value = tool_json("t1");
    value["tags"] = json!({ "env": "prod" });
    value["createdBy"] = json!("alice");
    store.put(tool_from(value), Expected::Absent).await.expect("create");

    let by = format!("tool#{}", sha("alice"));
    let tag = format!("tool#{}", sha("env"));
    let indexes = [
        ("byKind", "gKind", "tool".to_owned()),
        ("byStatus", "gStatus", "tool#active".to_owned()),
        ("byExecutionType", "gExec", "tool#lambda".to_owned()),
        ("byCreatedBy", "gCreatedBy", by),
        ("byTag", "gTag", tag),
    ];
    for (index, attr, value) in &indexes {
        assert_eq!(index_ids(&store, index, attr, value).await, ["t1"], "{index}");
    }
    // Raw head: the document is one JSON string, no DynamoDB maps.
    let head = store
        .client()
        .get_item()
        .table_name(store.table())
        .key("pk", AttributeValue::S("TOOL#t1".into()))
        .key("sk", AttributeValue::S("HEAD".into()))
        .send()
        .await
        .expect("get raw")
        .item
        .expect("head");
    assert!(head["doc"].as_s().unwrap().contains("\"toolId\":\"t1\""));
    assert!(head.values().all(|v| !v.is_m()));

    store
        .put(with_status(tool("t1"), LifecycleStatus::Deprecated), Expected::Version(1))
        .await
        .expect("update");
    assert!(
        index_ids(&store, "byStatus", "gStatus", "tool#active").await.is_empty(),
        "status moved"
    );
    assert_eq!(index_ids(&store, "byStatus", "gStatus", "tool#deprecated").await, ["t1"]);
    assert!(index_ids(&store, "byTag", "gTag", &indexes[4].2).await.is_empty(), "tag removed");
    assert!(index_ids(&store, "byCreatedBy", "gCreatedBy", &indexes[3].2).await.is_empty());

    store.delete(Kind::Tool, "t1", 2).await.expect("delete");
    for (index, attr, value) in [
        ("byKind", "gKind", "tool"),
        ("byStatus", "gStatus", "tool#deprecated"),
        ("byExecutionType", "gExec", "tool#lambda"),
    ] {
        assert!(index_ids(&store, index, attr, value).await.is_empty(), "{index} after delete");
    }
}

#[tokio::test]
async fn long_tag_keys_and_principals_are_indexed() {
    let store = common::store().await;
    let long_key = format!("k/{}", "ü".repeat(3000));
    let principal = format!("arn:aws:sts::123456789012:assumed-role/{}", "r".repeat(2100));
    let mut value = tool_json("t1");
    value["tags"] = json!({ long_key.clone(): "v" });
    value["createdBy"] = json!(principal.clone());
    let stored = store.put(tool_from(value), Expected::Absent).await.expect("create");
    assert_eq!(store.get(Kind::Tool, "t1").await.expect("get"), Some(stored));

    let tag = ListFilter {
        tag: Some(TagFilter { key: long_key, value: Some("v".into()) }),
        ..ListFilter::default()
    };
    let page = store
        .list(Kind::Tool, &ListQuery { filter: tag, ..ListQuery::default() })
        .await
        .expect("list");
    assert_eq!(page.items.len(), 1);
    let by = ListFilter { created_by: Some(principal), ..ListFilter::default() };
    let page = store
        .list(Kind::Tool, &ListQuery { filter: by, ..ListQuery::default() })
        .await
        .expect("list");
    assert_eq!(page.items.len(), 1);
}

#[tokio::test]
async fn cursors_only_resume_their_own_list() {
    let store = common::store().await;
    for id in ["a", "b", "c"] {
        let mut value = tool_json(id);
        value["tags"] = json!({ "x": "1" });
        store.put(tool_from(value), Expected::Absent).await.expect("create");
    }
    let first = store
        .list(Kind::Tool, &ListQuery { limit: 1, ..ListQuery::default() })
        .await
        .expect("list");
    let cursor = first.next_cursor.expect("more");
    let resumed = ListQuery { limit: 1, cursor: Some(cursor.clone()), ..ListQuery::default() };
    assert_eq!(store.list(Kind::Tool, &resumed).await.expect("resume").items[0].id(), "b");

    // The same cursor on another list, another kind, or another store's key: refused.
    let mut other = resumed.clone();
    other.filter.tag = Some(TagFilter { key: "x".into(), value: None });
    assert!(matches!(store.list(Kind::Tool, &other).await, Err(StoreError::InvalidCursor)));
    assert!(matches!(store.list(Kind::Agent, &resumed).await, Err(StoreError::InvalidCursor)));
    assert!(matches!(
        store.versions(Kind::Tool, "a", &resumed).await,
        Err(StoreError::InvalidCursor)
    ));
    let foreign = DynamoStore::new(store.client().clone(), store.table(), b"another key");
    assert!(matches!(foreign.list(Kind::Tool, &resumed).await, Err(StoreError::InvalidCursor)));
    for garbled in ["", ".", "x.y", "e30.AAAA", &cursor.replace('.', "")] {
        let q = ListQuery { cursor: Some(garbled.to_owned()), ..ListQuery::default() };
        assert!(
            matches!(store.list(Kind::Tool, &q).await, Err(StoreError::InvalidCursor)),
            "{garbled:?}"
        );
    }
}

#[tokio::test]
async fn create_table_is_idempotent_and_agent_references_are_counted() {
    let store = common::store().await;
    store.create_table().await.expect("second create_table");
    for id in ["t1", "t2"] {
        store.put(tool(id), Expected::Absent).await.expect("tool");
    }
    store.put(agent("a1", &["t1", "t2"]), Expected::Absent).await.expect("agent");
    store.put(agent("a2", &["t1"]), Expected::Absent).await.expect("agent");
    let ref_count = |id: &'static str| {
        let store = store.clone();
        async move {
            let item: HashMap<String, AttributeValue> = store
                .client()
                .get_item()
                .table_name(store.table())
                .key("pk", AttributeValue::S(format!("TOOL#{id}")))
                .key("sk", AttributeValue::S("HEAD".into()))
                .send()
                .await
                .expect("raw get")
                .item
                .expect("head");
            item["refCount"].as_n().unwrap().clone()
        }
    };
    assert_eq!(ref_count("t1").await, "2");
    assert_eq!(ref_count("t2").await, "1");
    store.put(agent("a1", &["t2"]), Expected::Version(1)).await.expect("drop t1");
    store.delete(Kind::Agent, "a2", 1).await.expect("delete a2");
    assert_eq!(ref_count("t1").await, "0");
    assert_eq!(ref_count("t2").await, "1");
    store.delete(Kind::Tool, "t1", 1).await.expect("unused now");
}

#[tokio::test]
async fn writes_beyond_one_transaction_are_refused_whole() {
    let store = common::store().await;
    let ids: Vec<String> = (0..50).map(|n| format!("t{n:02}")).collect();
    for id in &ids {
        store.put(tool(id), Expected::Absent).await.expect("tool");
    }
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    // head + snapshot + event counter + event + 2 per new reference: 48 fit in 100
    // items, 49 do not.
    store.put(agent("fits", &refs[..48]), Expected::Absent).await.expect("48 tools");
    let err =
        store.put(agent("too-big", &refs[..49]), Expected::Absent).await.expect_err("49 tools");
    assert!(matches!(&err, StoreError::TooLarge(m) if m.contains("100")), "{err:?}");
    assert!(store.get(Kind::Agent, "too-big").await.expect("get").is_none());
}
