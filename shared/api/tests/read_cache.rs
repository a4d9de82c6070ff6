#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Reads answer from JSON kept per (kind, id, version): a write shows at once in
//! `GET` and in lists, with its ETag, and secrets stay out.

mod common;

use common::{agent_json, mcp_tool_json, start, tool_json};
use reqwest::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn a_write_shows_at_once_in_get_and_list() {
    let s = start().await;
    for id in ["a-tool", "b-tool", "c-tool"] {
        assert_eq!(s.create_tool(&tool_json(id)).await.status, StatusCode::CREATED);
    }
    // warm: every tool read (and so encoded) once
    let before = s.get("/tools?limit=2").await;
    assert_eq!(before.content_type(), "application/json");
    assert_eq!(before.body["items"][1]["version"], 1);
    let cursor = before.body["nextCursor"].as_str().unwrap().to_owned();
    let rest = s.get(&format!("/tools?limit=2&cursor={cursor}")).await;
    assert_eq!(rest.body["items"][0]["toolId"], "c-tool");
    assert!(rest.body.get("nextCursor").is_none(), "{}", rest.text);
    assert_eq!(s.get("/tools/b-tool").await.etag(), "\"1\"");

    let mut changed = tool_json("b-tool");
    changed["description"] = json!("Changed after it was read.");
    let put = s.admin_json(Method::PUT, "/tools/b-tool", &changed).await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.text);

    let got = s.get("/tools/b-tool").await;
    assert_eq!(got.etag(), "\"2\"");
    assert_eq!(got.body["description"], "Changed after it was read.");
    assert_eq!(got.body, put.body);
    let after = s.get("/tools?limit=2").await;
    assert_eq!(after.body["items"][1]["version"], 2);
    assert_eq!(after.body["items"][1], got.body);
    assert_eq!(after.body["items"][0], before.body["items"][0]);

    // deleted: gone from GET and the list at once
    let deleted =
        s.send(s.req(Method::DELETE, "/tools/b-tool", &s.admin).header("if-match", "\"2\"")).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{}", deleted.text);
    s.get("/tools/b-tool").await.assert_problem(404, "NOT_FOUND");
    let ids: Vec<_> = s.get("/tools").await.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["toolId"].clone())
        .collect();
    assert_eq!(ids, [json!("a-tool"), json!("c-tool")]);

    // agents alike
    assert_eq!(s.create_agent(&agent_json("an-agent", &["a-tool"])).await.status, 201);
    assert_eq!(s.get("/agents/an-agent").await.body["toolIds"], json!(["a-tool"]));
    let put =
        s.admin_json(Method::PUT, "/agents/an-agent", &agent_json("an-agent", &["c-tool"])).await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.text);
    let got = s.get("/agents/an-agent").await;
    assert_eq!((got.etag(), got.body["toolIds"].clone()), ("\"2\"".into(), json!(["c-tool"])));
    assert_eq!(s.get("/agents").await.body["items"][0], got.body);
}

#[tokio::test]
async fn kept_json_never_carries_a_secret() {
    let s = start().await;
    let secret = "kept-json-secret-value";
    let created = s.create_tool(&mcp_tool_json("mcp-tool", secret)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    for _ in 0..2 {
        for path in ["/tools/mcp-tool", "/tools", "/tools?limit=1"] {
            let reply = s.get(path).await;
            assert_eq!(reply.status, StatusCode::OK, "{path}: {}", reply.text);
            assert!(reply.text.contains("mcp-tool"), "{path}: {}", reply.text);
            assert!(!reply.text.contains(secret), "{path} leaks the secret");
        }
    }
}
