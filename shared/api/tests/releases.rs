#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Tool releases by name: `GET /tools?name=` lists every release in semantic order.

mod common;

use common::{start, tool_json};
use reqwest::{Method, StatusCode};

#[tokio::test]
async fn releases_of_a_name_come_in_semantic_order() {
    let s = start().await;
    for id in [
        "weather@1.10.0",
        "weather@1.2.0",
        "weather@2.0.0-beta.1",
        "weather@2.0.0",
        "weather-x@1.0.0",
    ] {
        let r = s
            .send(s.req(Method::PUT, &format!("/tools/{id}"), &s.editor).json(&tool_json(id)))
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    let r = s.get("/tools?name=weather").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let ids: Vec<&str> =
        r.body["items"].as_array().unwrap().iter().map(|t| t["toolId"].as_str().unwrap()).collect();
    assert_eq!(ids, ["weather@1.2.0", "weather@1.10.0", "weather@2.0.0-beta.1", "weather@2.0.0"]);
    assert!(r.body["nextCursor"].is_null(), "{}", r.text);

    s.get("/tools?name=weather&limit=2").await.assert_invalid_at("/limit");
    s.get("/tools?name=weather@1").await.assert_invalid_at("/name");
    s.get("/agents?name=weather").await.assert_invalid_at("/name");
}
