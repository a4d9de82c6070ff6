#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Server limits over real sockets: slow and idle connections are closed, the
//! connection and in-flight caps hold, slow requests time out, with problems.

mod common;

use std::time::Duration;

use common::{parse_raw, read_to_close, start_with, tool_json};
use registry_api::ServerLimits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Limits with short timeouts, so that the server acts quickly.
fn quick() -> ServerLimits {
    ServerLimits {
        header_timeout: Duration::from_secs(1),
        request_timeout: Duration::from_millis(500),
        ..ServerLimits::default()
    }
}

#[tokio::test]
async fn half_sent_headers_are_closed() {
    let s = start_with(quick()).await;
    let mut stream = s.connect().await;
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ").await.unwrap();
    let answer = read_to_close(&mut stream).await;
    // Closed without an answer: the head never completed.
    assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
}

#[tokio::test]
async fn idle_connections_are_closed_before_and_after_a_request() {
    let s = start_with(quick()).await;
    // Connected, never sent a byte.
    let mut silent = s.connect().await;
    assert!(read_to_close(&mut silent).await.is_empty());
    // One request answered on a keep-alive connection, then idle.
    let mut stream = s.connect().await;
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let answer = read_to_close(&mut stream).await;
    let (status, head, body) = parse_raw(&answer);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    assert!(!head.contains("connection: close"), "the server did not keep the connection alive");
    assert_eq!(body["status"], "ok");
}

#[tokio::test]
async fn a_request_slower_than_the_timeout_is_a_503_problem() {
    let s = start_with(ServerLimits { header_timeout: Duration::from_secs(30), ..quick() }).await;
    let mut stream = s.connect().await;
    let head = format!(
        "PUT /tools/t1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"toolId\":",
        s.editor
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let answer = read_to_close(&mut stream).await;
    let (status, head, body) = parse_raw(&answer);
    assert_eq!(status, 503, "{}", String::from_utf8_lossy(&answer));
    assert!(head.contains("content-type: application/problem+json"));
    assert_eq!(body["code"], "TIMEOUT");
    assert!(body["errors"].is_array());
    // Nothing was written.
    assert_eq!(s.get("/tools/t1").await.status, 404);
}

#[tokio::test]
async fn beyond_the_in_flight_cap_requests_are_shed_with_retry_after() {
    let limits = ServerLimits {
        max_in_flight: 1,
        request_timeout: Duration::from_secs(60),
        ..ServerLimits::default()
    };
    let s = start_with(limits).await;
    // Hold the only slot: a PUT whose body is still coming.
    let body = serde_json::to_vec(&tool_json("t1")).unwrap();
    let mut holder = s.connect().await;
    let head = format!(
        "PUT /tools/t1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        s.editor,
        body.len()
    );
    holder.write_all(head.as_bytes()).await.unwrap();
    holder.write_all(&body[..10]).await.unwrap();
    // Once the holder is in flight, every other request is shed, but liveness.
    let mut shed = None;
    for _ in 0..500 {
        let r = s.send(s.req(reqwest::Method::GET, "/openapi.json", "")).await;
        if r.status == 503 {
            shed = Some(r);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let shed = shed.expect("no request was shed while the only slot was held");
    shed.assert_problem(503, "OVERLOADED");
    assert_eq!(shed.headers["retry-after"], "1");
    assert_eq!(s.send(s.req(reqwest::Method::GET, "/healthz", "")).await.status, 200);
    // The holder finishes normally, and the slot is free again.
    holder.write_all(&body[10..]).await.unwrap();
    let (status, _, written) = parse_raw(&read_to_close(&mut holder).await);
    assert_eq!(status, 201);
    assert_eq!(written["version"], 1);
    assert_eq!(s.send(s.req(reqwest::Method::GET, "/healthz", "")).await.status, 200);
}

#[tokio::test]
async fn beyond_the_connection_cap_the_server_stops_accepting() {
    let limits = ServerLimits { max_connections: 1, ..ServerLimits::default() };
    let s = start_with(limits).await;
    let first = s.connect().await;
    // Make sure the first connection is the one accepted: it gets an answer.
    let mut first = first;
    first.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let mut buf = [0u8; 1024];
    let n = first.read(&mut buf).await.unwrap();
    assert_eq!(parse_raw(&buf[..n]).0, 200);
    // A second connection is not served while the first is open...
    let mut second = s.connect().await;
    second
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let waited = tokio::time::timeout(Duration::from_millis(300), second.read(&mut buf)).await;
    assert!(waited.is_err(), "a second connection was served beyond the cap of 1");
    // ...and is once the first closes.
    drop(first);
    let answer = read_to_close(&mut second).await;
    assert_eq!(parse_raw(&answer).0, 200, "{}", String::from_utf8_lossy(&answer));
}
