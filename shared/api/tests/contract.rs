#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Contract details over real HTTP: `If-Match` syntax, `If-Match: *` and PUT without
//! `If-Match` under concurrency, and problems for every refusal, hyper's own included.

mod common;

use std::sync::Arc;

use common::{parse_raw, start, tool_json};
use reqwest::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn if_match_must_be_a_quoted_entity_tag() {
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    for bad in ["1", "abc", "\"1", "\"1\" \"2\"", "*, \"1\""] {
        let r = s.patch("/tools/t1", &s.editor, bad, &json!({"description": "Changed."})).await;
        r.assert_problem(400, "BAD_REQUEST");
        assert_eq!(r.error_paths(), ["/headers/If-Match"], "{bad}: {}", r.text);
    }
    // Weak tags are valid syntax but never match (strong comparison).
    let r = s.patch("/tools/t1", &s.editor, "W/\"1\"", &json!({"description": "Changed."})).await;
    r.assert_problem(412, "VERSION_MISMATCH");
    let r = s.send(s.req(Method::DELETE, "/tools/t1", &s.admin).header("if-match", "1")).await;
    r.assert_problem(400, "BAD_REQUEST");
    // Nothing changed.
    let stored = s.get("/tools/t1").await;
    assert_eq!(stored.body["version"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn if_match_star_applies_to_whatever_is_current() {
    let s = Arc::new(start().await);
    s.create_tool(&tool_json("t1")).await;
    let mut tasks = Vec::new();
    for i in 0..16 {
        let s = Arc::clone(&s);
        tasks.push(tokio::spawn(async move {
            s.patch("/tools/t1", &s.editor, "*", &json!({"description": format!("Writer {i}.")}))
                .await
        }));
    }
    for task in tasks {
        let r = task.await.unwrap();
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
    assert_eq!(s.get("/tools/t1").await.body["version"], 17);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_puts_of_a_new_id_never_answer_retry() {
    let s = Arc::new(start().await);
    let mut tasks = Vec::new();
    for i in 0..16 {
        let s = Arc::clone(&s);
        tasks.push(tokio::spawn(async move {
            let mut body = tool_json("fresh");
            body["description"] = json!(format!("Apply {i}."));
            s.send(s.req(Method::PUT, "/tools/fresh", &s.editor).json(&body)).await
        }));
    }
    let mut created = 0;
    for task in tasks {
        let r = task.await.unwrap();
        match r.status {
            StatusCode::CREATED => created += 1,
            StatusCode::OK => {}
            other => panic!("unexpected {other}: {}", r.text),
        }
    }
    assert_eq!(created, 1);
    assert_eq!(s.get("/tools/fresh").await.body["version"], 16);
}

#[tokio::test]
async fn oversize_requests_are_problems() {
    let s = start().await;
    // Over our limit (8 KiB)...
    let path = format!("/agents/{}", "a".repeat(20_000));
    s.send(s.req(Method::GET, &path, &s.reader)).await.assert_problem(414, "URI_TOO_LONG");
    // ...and over hyper's own (64 KiB), which no client library will even send.
    let request = format!("GET /agents/{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(100_000));
    let (status, head, body) = parse_raw(&s.raw(request.as_bytes()).await);
    assert_eq!(status, 414);
    assert!(head.contains("content-type: application/problem+json"), "{head}");
    assert_eq!(body["code"], "URI_TOO_LONG");
    // Headers over our limit (32 KiB), and over hyper's read buffer.
    for len in [40_000, 300_000] {
        let r =
            s.send(s.req(Method::GET, "/agents", &s.reader).header("x-big", "b".repeat(len))).await;
        r.assert_problem(431, "HEADERS_TOO_LARGE");
    }
}

#[tokio::test]
async fn undecodable_and_raw_paths_are_problems() {
    let s = start().await;
    for path in ["/agents/%FF", "/agents/%FF/versions", "/tools/%C3%28", "/agents/x/versions/%FF"] {
        let r = s.send(s.req(Method::GET, path, &s.reader)).await;
        assert_eq!(r.content_type(), "application/problem+json", "{path}: {}", r.text);
        assert!(r.status.is_client_error(), "{path}: {}", r.status);
        assert!(r.body["code"].is_string() && r.body["errors"].is_array(), "{path}: {}", r.text);
    }
    s.send(s.req(Method::GET, "/nowhere/%FF", &s.reader)).await.assert_problem(404, "NOT_FOUND");
    // Bytes hyper refuses before routing: raw non-ASCII, spaces, a bad version.
    for raw in [
        &b"GET /agents/\xff HTTP/1.1\r\nHost: x\r\n\r\n"[..],
        b"GET /agents/a b HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /agents HTTP/9.9\r\nHost: x\r\n\r\n",
        b"\x00\x01\x02 garbage\r\n\r\n",
        b"GET /agents HTTP/1.1\r\nBad Header\r\n\r\n",
    ] {
        let answer = s.raw(raw).await;
        let (status, head, body) = parse_raw(&answer);
        assert!((400..500).contains(&status), "{}", String::from_utf8_lossy(&answer));
        assert!(head.contains("content-type: application/problem+json"), "{head}");
        assert_eq!(body["status"], status);
        assert!(body["code"].is_string() && body["errors"].is_array(), "{body}");
    }
}

#[tokio::test]
async fn content_length_lies_over_the_wire_are_problems_and_change_nothing() {
    use tokio::io::AsyncWriteExt;
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    let body = serde_json::to_vec(&json!({"description": "Changed."})).unwrap();
    let head = |length: usize| {
        format!(
            "PATCH /tools/t1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
             If-Match: \"1\"\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n",
            s.editor
        )
    };
    // Shorter than the body: a truncated body, then the rest read as a request.
    let mut short = head(body.len() - 5).into_bytes();
    short.extend_from_slice(&body);
    let answer = String::from_utf8_lossy(&s.raw(&short).await).into_owned();
    let responses: Vec<&str> = answer.split("HTTP/1.1 ").filter(|r| !r.is_empty()).collect();
    assert_eq!(responses.len(), 2, "{answer}");
    for response in responses {
        let (status, head, body) = parse_raw(format!("HTTP/1.1 {response}").as_bytes());
        assert_eq!(status, 400, "{response}");
        assert!(head.contains("content-type: application/problem+json"), "{head}");
        assert!(body["code"].is_string() && body["errors"].is_array(), "{body}");
    }
    // Longer than the body, then the client stops sending: no write, no 5xx.
    let mut stream = s.connect().await;
    stream.write_all(head(body.len() + 50).as_bytes()).await.unwrap();
    stream.write_all(&body).await.unwrap();
    stream.shutdown().await.unwrap();
    let answer = common::read_to_close(&mut stream).await;
    if !answer.is_empty() {
        let (status, head, _) = parse_raw(&answer);
        assert_eq!(status, 400, "{}", String::from_utf8_lossy(&answer));
        assert!(head.contains("content-type: application/problem+json"), "{head}");
    }
    assert_eq!(s.get("/tools/t1").await.body["version"], 1);
}
