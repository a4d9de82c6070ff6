#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Optimistic locking under real concurrency.

mod common;

use common::{start, tool_json};
use reqwest::{Method, StatusCode};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_two_patches_with_the_same_if_match_have_one_winner() {
    let s = std::sync::Arc::new(start().await);
    s.create_tool(&tool_json("t1")).await;
    let mut tasks = Vec::new();
    for i in 0..32 {
        let s = std::sync::Arc::clone(&s);
        tasks.push(tokio::spawn(async move {
            let r = s
                .patch(
                    "/tools/t1",
                    &s.editor,
                    "\"1\"",
                    &json!({"description": format!("Writer {i} won.")}),
                )
                .await;
            (i, r)
        }));
    }
    let mut winners = Vec::new();
    let mut lost = 0;
    for task in tasks {
        let (i, r) = task.await.unwrap();
        match r.status {
            StatusCode::OK => winners.push(i),
            StatusCode::PRECONDITION_FAILED => {
                r.assert_problem(412, "VERSION_MISMATCH");
                lost += 1;
            }
            other => panic!("unexpected {other}: {}", r.text),
        }
    }
    assert_eq!(winners.len(), 1, "winners: {winners:?}");
    assert_eq!(lost, 31);
    let stored = s.get("/tools/t1").await;
    assert_eq!(stored.body["version"], 2);
    assert_eq!(stored.body["description"], format!("Writer {} won.", winners[0]));
    assert_eq!(s.get("/tools/t1/versions").await.body["items"].as_array().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_unconditional_puts_all_land_as_versions() {
    let s = std::sync::Arc::new(start().await);
    s.create_tool(&tool_json("t1")).await;
    let mut tasks = Vec::new();
    for i in 0..8 {
        let s = std::sync::Arc::clone(&s);
        tasks.push(tokio::spawn(async move {
            let mut body = tool_json("t1");
            body["description"] = json!(format!("Apply {i}."));
            s.send(s.req(Method::PUT, "/tools/t1", &s.editor).json(&body)).await
        }));
    }
    for task in tasks {
        let r = task.await.unwrap();
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
    // Every apply wrote its own version: 1 + 8, numbered without gaps.
    let numbers = s.version_numbers("/tools/t1/versions?limit=100").await;
    assert_eq!(numbers, (1..=9).collect::<Vec<_>>());
}
