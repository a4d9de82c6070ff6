#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Every route through the real router on a real SQLite file.

mod common;

use common::{agent_json, start, tool_json};
use reqwest::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn tool_and_agent_lifecycle_through_every_route() {
    let s = start().await;

    // POST /tools: 201, Location, ETag, server fields from the principal.
    let created = s.create_tool(&tool_json("weather-basic")).await;
    assert_eq!(created.headers["location"], "/tools/weather-basic");
    assert_eq!(created.etag(), "\"1\"");
    assert_eq!(created.body["version"], 1);
    assert_eq!(created.body["createdBy"], "eve-editor");
    assert_eq!(created.body["lastModifiedBy"], "eve-editor");
    assert!(created.body["createdAt"].as_str().unwrap().ends_with('Z'));

    // POST /agents with a generated id.
    let mut agent = agent_json("", &["weather-basic"]);
    agent.as_object_mut().unwrap().remove("agentId");
    let agent_reply = s.create_agent(&agent).await;
    let agent_id = agent_reply.body["agentId"].as_str().unwrap().to_owned();
    assert_eq!(uuid::Uuid::parse_str(&agent_id).unwrap().get_version_num(), 7);
    assert_eq!(agent_reply.headers["location"], format!("/agents/{agent_id}").as_str());

    // GET /agents/{id} and /tools/{id}.
    let got = s.get(&format!("/agents/{agent_id}")).await;
    assert_eq!(got.status, StatusCode::OK);
    assert_eq!(got.etag(), "\"1\"");
    assert_eq!(got.body["toolIds"], json!(["weather-basic"]));
    let got = s.get("/tools/weather-basic").await;
    assert_eq!(got.body["lambdaArn"], tool_json("x")["lambdaArn"]);

    // PATCH /tools/{id} with If-Match; updatedAt moves, createdAt/createdBy stay.
    let patched = s
        .send(
            s.req(Method::PATCH, "/tools/weather-basic", &s.admin)
                .header("if-match", "\"1\"")
                .header("content-type", "application/merge-patch+json")
                .body(
                    json!({"description": "Weather, patched.", "createdBy": "mallory"}).to_string(),
                ),
        )
        .await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text);
    assert_eq!(patched.etag(), "\"2\"");
    assert_eq!(patched.body["description"], "Weather, patched.");
    assert_eq!(patched.body["createdBy"], "eve-editor");
    assert_eq!(patched.body["lastModifiedBy"], "admin");
    assert_eq!(patched.body["createdAt"], created.body["createdAt"]);

    // PATCH with the version in the body instead of If-Match.
    let patched = s
        .send(
            s.req(Method::PATCH, &format!("/agents/{agent_id}"), &s.editor)
                .json(&json!({"version": 1, "tags": {"team": "wx"}})),
        )
        .await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text);
    assert_eq!(patched.body["version"], 2);
    assert_eq!(patched.body["tags"], json!({"team": "wx"}));

    // PUT /tools/{id}: replace with If-Match, then unconditional.
    let mut replacement = tool_json("weather-basic");
    replacement["displayName"] = json!("Weather v3");
    let put = s.write(Method::PUT, "/tools/weather-basic", &s.editor, "\"2\"", &replacement).await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.text);
    assert_eq!(put.body["version"], 3);
    replacement["displayName"] = json!("Weather v4");
    let put =
        s.send(s.req(Method::PUT, "/tools/weather-basic", &s.editor).json(&replacement)).await;
    assert_eq!(put.body["version"], 4);
    assert_eq!(put.etag(), "\"4\"");

    // PUT creates when absent: 201 with Location.
    let put =
        s.send(s.req(Method::PUT, "/tools/forecast", &s.editor).json(&tool_json("forecast"))).await;
    assert_eq!(put.status, StatusCode::CREATED, "{}", put.text);
    assert_eq!(put.headers["location"], "/tools/forecast");

    // GET /tools lists both; GET /agents lists the agent.
    let list = s.get("/tools").await;
    assert_eq!(list.status, StatusCode::OK);
    let ids: Vec<_> =
        list.body["items"].as_array().unwrap().iter().map(|t| t["toolId"].clone()).collect();
    assert_eq!(ids, vec![json!("forecast"), json!("weather-basic")]);
    assert!(list.body.get("nextCursor").is_none());
    let list = s.get("/agents").await;
    assert_eq!(list.body["items"].as_array().unwrap().len(), 1);

    // Version history and snapshots.
    assert_eq!(s.version_numbers("/tools/weather-basic/versions").await, vec![1, 2, 3, 4]);
    let v1 = s.get("/tools/weather-basic/versions/1").await;
    assert_eq!(v1.etag(), "\"1\"");
    assert_eq!(v1.body["description"], "Looks up the weather.");
    let av = s.get(&format!("/agents/{agent_id}/versions")).await;
    assert_eq!(av.body["items"].as_array().unwrap().len(), 2);
    let av1 = s.get(&format!("/agents/{agent_id}/versions/1")).await;
    assert!(av1.body.get("tags").is_none());
    assert_eq!(s.get("/tools/weather-basic/versions/9").await.status, StatusCode::NOT_FOUND);
    s.get("/tools/weather-basic/versions/zero").await.assert_problem(400, "BAD_REQUEST");

    // DELETE: agent first (204), then the tool is free to go.
    let del = s
        .send(
            s.req(Method::DELETE, &format!("/agents/{agent_id}"), &s.admin)
                .header("if-match", "\"2\""),
        )
        .await;
    assert_eq!(del.status, StatusCode::NO_CONTENT, "{}", del.text);
    s.get(&format!("/agents/{agent_id}")).await.assert_problem(404, "NOT_FOUND");
    // History survives the delete.
    assert_eq!(s.get(&format!("/agents/{agent_id}/versions/2")).await.status, StatusCode::OK);
    let del = s
        .send(s.req(Method::DELETE, "/tools/weather-basic", &s.admin).header("if-match", "\"4\""))
        .await;
    assert_eq!(del.status, StatusCode::NO_CONTENT, "{}", del.text);
    s.get("/tools/weather-basic").await.assert_problem(404, "NOT_FOUND");
}

#[tokio::test]
async fn same_put_twice_keeps_the_version() {
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    let body = agent_json("a1", &["t1"]);
    let first = s.send(s.req(Method::PUT, "/agents/a1", &s.editor).json(&body)).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    let second = s.send(s.req(Method::PUT, "/agents/a1", &s.editor).json(&body)).await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.text);
    assert_eq!(second.body["version"], 1);
    assert_eq!(second.etag(), "\"1\"");
    assert_eq!(second.body["updatedAt"], first.body["updatedAt"]);
    // Server fields in the body do not count as a change.
    let mut with_server_fields = body.clone();
    with_server_fields["createdBy"] = json!("mallory");
    with_server_fields["updatedAt"] = json!("2001-01-01T00:00:00Z");
    let third = s.send(s.req(Method::PUT, "/agents/a1", &s.editor).json(&with_server_fields)).await;
    assert_eq!(third.body["version"], 1);
    assert_eq!(third.body["createdBy"], "eve-editor");
    assert_eq!(s.get("/agents/a1/versions").await.body["items"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_version_snapshot_never_changes() {
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    let before = s.get("/tools/t1/versions/1").await;
    for (i, text) in ["second", "third"].iter().enumerate() {
        let mut body = tool_json("t1");
        body["description"] = json!(format!("The {text} description."));
        let r = s.write(Method::PUT, "/tools/t1", &s.editor, format!("\"{}\"", i + 1), &body).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
    let after = s.get("/tools/t1/versions/1").await;
    assert_eq!(before.text, after.text);
    assert_eq!(s.get("/tools/t1").await.body["description"], "The third description.");
}

#[tokio::test]
async fn map_keys_round_trip_byte_for_byte() {
    let s = start().await;
    s.create_tool(&tool_json("weather-basic")).await;
    s.create_tool(&tool_json("weather-pro")).await;
    let mut agent = agent_json("a1", &["weather-basic"]);
    agent["tags"] = json!({"beta-only": "true", "Team Name": "wx"});
    agent["rolloutPolicy"] = json!({"toolOverrides": {"weather-basic@1": "weather-pro"}});
    s.create_agent(&agent).await;
    let got = s.get("/agents/a1").await;
    assert_eq!(got.body["tags"], agent["tags"]);
    assert_eq!(
        got.body["rolloutPolicy"]["toolOverrides"],
        json!({"weather-basic@1": "weather-pro"})
    );
    let listed = s.get("/agents?tag=beta-only").await;
    assert_eq!(listed.body["items"][0]["tags"]["beta-only"], "true");
    let snapshot = s.get("/agents/a1/versions/1").await;
    assert!(snapshot.text.contains("\"weather-basic@1\":\"weather-pro\""));
}

#[tokio::test]
async fn lists_filter_and_paginate() {
    let s = start().await;
    for i in 0..5 {
        let mut tool = tool_json(&format!("t{i}"));
        if i % 2 == 0 {
            tool["tags"] = json!({"env": "prod"});
        } else {
            tool["tags"] = json!({"env": "dev"});
        }
        s.create_tool(&tool).await;
    }
    let mut mcp = common::mcp_tool_json("m1", "s3cr3t-value");
    mcp["lifecycle"] = json!({"status": "deprecated"});
    s.send(s.req(Method::POST, "/tools", &s.admin).json(&mcp)).await;

    let ids = |r: &common::Reply| -> Vec<String> {
        r.body["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["toolId"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&s.get("/tools?tag=env=prod").await), ["t0", "t2", "t4"]);
    assert_eq!(ids(&s.get("/tools?tag=env").await).len(), 5);
    assert_eq!(ids(&s.get("/tools?executionType=mcp").await), ["m1"]);
    assert_eq!(ids(&s.get("/tools?status=deprecated").await), ["m1"]);
    assert_eq!(ids(&s.get("/tools?createdBy=admin").await), ["m1"]);
    assert_eq!(ids(&s.get("/tools?createdBy=eve-editor&tag=env%3Ddev").await), ["t1", "t3"]);

    // Pagination walks everything exactly once.
    let mut seen = Vec::new();
    let mut path = "/tools?limit=2".to_owned();
    loop {
        let page = s.get(&path).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.text);
        let got = ids(&page);
        assert!(got.len() <= 2);
        seen.extend(got);
        match page.body["nextCursor"].as_str() {
            Some(c) => path = format!("/tools?limit=2&cursor={c}"),
            None => break,
        }
    }
    assert_eq!(seen, ["m1", "t0", "t1", "t2", "t3", "t4"]);

    // Bad parameters are 400 problems naming the parameter.
    s.get("/tools?limit=0").await.assert_invalid_at("/limit");
    s.get("/tools?limit=101").await.assert_invalid_at("/limit");
    s.get("/tools?status=sleeping").await.assert_invalid_at("/status");
    s.get("/tools?executionType=python").await.assert_invalid_at("/executionType");
    s.get("/agents?executionType=lambda").await.assert_invalid_at("/executionType");
    s.get("/tools?colour=red").await.assert_invalid_at("/colour");
    s.get("/tools?cursor=garbage").await.assert_invalid_at("/cursor");
}

#[tokio::test]
async fn system_routes_need_no_token_and_unknown_routes_are_problems() {
    let s = start().await;
    let health = s.send(s.req(Method::GET, "/healthz", "")).await;
    assert_eq!(health.status, StatusCode::OK);
    assert_eq!(health.body["status"], "ok");
    let doc = s.send(s.req(Method::GET, "/openapi.json", "")).await;
    assert_eq!(doc.status, StatusCode::OK);
    assert!(doc.body["paths"]["/agents/{id}"].is_object());

    s.send(s.req(Method::GET, "/nope", &s.reader)).await.assert_problem(404, "NOT_FOUND");
    s.send(s.req(Method::POST, "/healthz", "")).await.assert_problem(405, "METHOD_NOT_ALLOWED");
    s.send(s.req(Method::DELETE, "/agents", &s.admin))
        .await
        .assert_problem(405, "METHOD_NOT_ALLOWED");

    // Every documented route exists in the router (none falls through to the 404 fallback).
    let documented = serde_json::to_value(registry_api::openapi::document()).unwrap();
    for route in documented["paths"].as_object().unwrap().keys() {
        let path = route.replace("{id}", "x").replace("{v}", "1");
        let r = s.get(&path).await;
        assert!(!r.text.contains("no route for"), "{route} is not routed: {}", r.text);
    }

    // Request ids: honoured when sent, generated otherwise.
    let r = s.send(s.req(Method::GET, "/healthz", "").header("x-request-id", "req-123")).await;
    assert_eq!(r.headers["x-request-id"], "req-123");
    let r = s.send(s.req(Method::GET, "/healthz", "")).await;
    assert!(!r.headers["x-request-id"].is_empty());
}

#[tokio::test]
async fn registry_is_callable_without_http() {
    let s = start().await;
    let admin = registry_api::Principal::new("loader", registry_api::Role::Admin);
    let tool: registry_core::ToolDefinition = serde_json::from_value(tool_json("t1")).unwrap();
    let written = s.registry.catalog.apply(&admin, "t1", tool.clone(), None, None).await.unwrap();
    assert_eq!(written.outcome, registry_api::Outcome::Created);
    let again = s.registry.catalog.apply(&admin, "t1", tool, None, None).await.unwrap();
    assert_eq!(again.outcome, registry_api::Outcome::Unchanged);
    let got = s.get("/tools/t1").await;
    assert_eq!(got.body["createdBy"], "loader");
}
