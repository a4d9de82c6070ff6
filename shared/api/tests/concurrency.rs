#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Optimistic locking under real concurrency.

mod common;

use std::sync::Arc;

use common::{Reply, Server, start, tool_json};
use reqwest::{Method, StatusCode};
use serde_json::json;

/// A server holding tool `t1`, and its replies to `n` requests at once, `call(server, i)`.
async fn at_once<F, R>(n: usize, call: F) -> (Arc<Server>, Vec<Reply>)
where
    F: Fn(Arc<Server>, usize) -> R,
    R: Future<Output = Reply> + Send + 'static,
{
    let s = Arc::new(start().await);
    s.create_tool(&tool_json("t1")).await;
    let tasks: Vec<_> = (0..n).map(|i| tokio::spawn(call(Arc::clone(&s), i))).collect();
    let mut replies = Vec::new();
    for task in tasks {
        replies.push(task.await.unwrap());
    }
    (s, replies)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_two_patches_with_the_same_if_match_have_one_winner() {
    let (s, replies) = at_once(32, |s, i| async move {
        let body = json!({"description": format!("Writer {i} won.")});
        s.patch("/tools/t1", &s.editor, "\"1\"", &body).await
    })
    .await;
    let mut winners = Vec::new();
    let mut lost = 0;
    for (i, r) in replies.into_iter().enumerate() {
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
    let (s, replies) = at_once(8, |s, i| async move {
        let mut body = tool_json("t1");
        body["description"] = json!(format!("Apply {i}."));
        s.send(s.req(Method::PUT, "/tools/t1", &s.editor).json(&body)).await
    })
    .await;
    for r in replies {
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
    // Every apply wrote its own version: 1 + 8, numbered without gaps.
    let numbers = s.version_numbers("/tools/t1/versions?limit=100").await;
    assert_eq!(numbers, (1..=9).collect::<Vec<_>>());
}
