//! Optimistic locking under contention on DynamoDB.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use registry_core::Kind;
use registry_store::contract::sample::{agent, tool, with_description};
use registry_store::{Expected, Store, StoreError};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_concurrent_updates_one_winner() {
    let store = Arc::new(common::store().await);
    store.put(tool("t1"), Expected::Absent).await.expect("create");
    let barrier = Arc::new(tokio::sync::Barrier::new(16));
    let mut tasks = Vec::new();
    for n in 0..16 {
        let (store, barrier) = (Arc::clone(&store), Arc::clone(&barrier));
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            store
                .put(with_description(tool("t1"), &format!("writer {n}")), Expected::Version(1))
                .await
        }));
    }
    let mut winners = 0;
    for task in tasks {
        match task.await.expect("task") {
            Ok(stored) => {
                winners += 1;
                assert_eq!(stored.version(), 2);
            }
            Err(StoreError::VersionMismatch { expected: 1, current: Some(2) }) => {}
            Err(other) => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(winners, 1);
    assert_eq!(store.get(Kind::Tool, "t1").await.expect("get").expect("tool").version(), 2);
}

/// Binding a tool and deleting it race: never an agent pointing at a deleted tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bind_and_delete_race_keeps_integrity() {
    let store = Arc::new(common::store().await);
    for round in 0..6 {
        let tool_id = format!("t{round}");
        let agent_id = format!("a{round}");
        store.put(tool(&tool_id), Expected::Absent).await.expect("tool");
        let (s1, s2) = (Arc::clone(&store), Arc::clone(&store));
        let (t, a) = (tool_id.clone(), agent_id.clone());
        let bind =
            tokio::spawn(async move { s1.put(agent(&a, &[t.as_str()]), Expected::Absent).await });
        let t = tool_id.clone();
        let delete = tokio::spawn(async move { s2.delete(Kind::Tool, &t, 1).await });
        let (bound, deleted) = (bind.await.expect("task"), delete.await.expect("task"));
        match (bound, deleted) {
            (Ok(_), Err(StoreError::InUse { agents })) => assert_eq!(agents, [agent_id.as_str()]),
            (Err(StoreError::BadReferences { missing, .. }), Ok(())) => {
                assert_eq!(missing, [tool_id.as_str()])
            }
            other => panic!("round {round}: both or neither won: {other:?}"),
        }
        let agent_live = store.get(Kind::Agent, &agent_id).await.expect("get").is_some();
        let tool_live = store.get(Kind::Tool, &tool_id).await.expect("get").is_some();
        assert!(!agent_live || tool_live, "round {round}: agent references a deleted tool");
    }
}
