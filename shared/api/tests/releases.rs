#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Tool releases by name: `GET /tools?name=` lists every release in semantic order.

mod common;

use common::{Reply, Server, start, tool_json};
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

/// `PUT` as editor of the weather tool release `id` with the given parameters
/// (name -> required).
async fn put(s: &Server, id: &str, parameters: &[(&str, bool)]) -> Reply {
    let mut tool = tool_json(id);
    let params: serde_json::Map<String, serde_json::Value> = parameters
        .iter()
        .map(|(name, required)| {
            (
                (*name).to_owned(),
                serde_json::json!({"type": "string", "description": name, "required": required}),
            )
        })
        .collect();
    tool["functionSchema"] = serde_json::json!([{"name": "get_weather", "description": "Weather for a city", "parameters": params}]);
    s.send(s.req(Method::PUT, &format!("/tools/{id}"), &s.editor).json(&tool)).await
}

/// The scenario: additive minor, breaking major, and the refusals.
#[tokio::test]
async fn breaking_changes_need_a_major_and_patches_change_nothing() {
    let s = start().await;
    assert_eq!(put(&s, "weather@1.0.0", &[("city", true)]).await.status, StatusCode::CREATED);
    let minor = put(&s, "weather@1.1.0", &[("city", true), ("units", false)]).await;
    assert_eq!(minor.status, StatusCode::CREATED, "{}", minor.text);
    let major = put(&s, "weather@2.0.0", &[("units", false)]).await;
    assert_eq!(major.status, StatusCode::CREATED, "{}", major.text);

    // 1.2.0 removing a parameter: refused, the breaking change listed at its path.
    let r = put(&s, "weather@1.2.0", &[("units", false)]).await;
    r.assert_invalid_at("/functionSchema/0/parameters/city");
    assert!(r.text.contains("weather@1.1.0") && r.text.contains("weather@2.0.0"), "{}", r.text);
    // a patch that adds something: refused, a minor is needed
    let r = put(&s, "weather@1.1.1", &[("city", true), ("units", false), ("lang", false)]).await;
    r.assert_invalid_at("/functionSchema/0/parameters/lang");
    assert!(r.text.contains("weather@1.2.0"), "{}", r.text);
    // a patch that changes nothing in the interface is fine
    assert_eq!(
        put(&s, "weather@1.1.1", &[("city", true), ("units", false)]).await.status,
        StatusCode::CREATED
    );
    // a revision of a published release cannot break it
    let r = put(&s, "weather@1.1.0", &[("units", false)]).await;
    r.assert_invalid_at("/functionSchema/0/parameters/city");
    assert_eq!(s.get("/tools/weather@1.1.0").await.body["version"], 1, "nothing written");
    assert_eq!(s.get("/tools/weather@1.2.0").await.status, StatusCode::NOT_FOUND);

    // the same report on demand
    let r = s.get("/tools/weather/compare?from=1.1.0&to=2.0.0").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["severity"], "breaking");
    assert_eq!(r.body["requiredBump"], "major");
    assert_eq!(r.body["changes"][0]["path"], "/functionSchema/0/parameters/city");
    let r = s.get("/tools/weather/compare?from=1&to=1.1").await;
    assert_eq!(r.body["severity"], "additive", "{}", r.text);
    assert_eq!(r.body["requiredBump"], "minor");
    s.get("/tools/weather/compare?from=1.0.0").await.assert_invalid_at("/to");
    s.get("/tools/weather/compare?from=x&to=1.0.0").await.assert_invalid_at("/from");
    s.get("/tools/weather/compare?from=1.0.0&to=9.0.0").await.assert_problem(404, "NOT_FOUND");
}

/// The acceptance: an agent on `weather@^1` gets the highest active 1.x release;
/// disabling it falls back to the next one; the trace says which and why.
#[tokio::test]
async fn ranges_pick_the_highest_usable_release_and_the_trace_says_why() {
    let s = start().await;
    assert_eq!(put(&s, "weather@1", &[("city", true)]).await.status, StatusCode::CREATED);
    assert_eq!(
        put(&s, "weather@1.1.0", &[("city", true), ("units", false)]).await.status,
        StatusCode::CREATED
    );
    assert_eq!(put(&s, "weather@2.0.0", &[("units", false)]).await.status, StatusCode::CREATED);
    // `@1` on input is stored as 1.0.0, and found by either spelling.
    let r = s.get("/tools/weather@1").await;
    assert_eq!((r.status, r.body["toolId"].as_str()), (StatusCode::OK, Some("weather@1.0.0")));

    s.create_agent(&common::agent_json("forecaster", &["weather@^1"])).await;
    let resolve = || async {
        let body = serde_json::json!({"user": {"userId": "u", "userType": "internal-user"}});
        let r = s
            .send(
                s.req(Method::POST, "/agents/forecaster/resolve?explain=true", &s.reader)
                    .json(&body),
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        r
    };
    let r = resolve().await;
    let tool = &r.body["trace"]["tools"][0];
    assert_eq!(tool["toolId"], "weather@1.1.0", "{}", r.text);
    assert_eq!(tool["range"], "weather@^1");
    assert_eq!(
        tool["skippedReleases"],
        serde_json::json!([{"toolId": "weather@2.0.0", "reason": "OUT_OF_RANGE"}])
    );
    let params =
        &r.body["inlineAgent"]["actionGroups"][0]["functionSchema"]["functions"][0]["parameters"];
    assert!(params.get("units").is_some(), "1.1.0's schema: {params}");

    // Disable 1.1.0: the next resolution picks 1.0.0, and says why 1.1.0 was passed over.
    let patched = s
        .send(
            s.req(Method::PATCH, "/tools/weather@1.1.0", &s.editor)
                .header("if-match", "\"1\"")
                .header("content-type", "application/merge-patch+json")
                .json(&serde_json::json!({"lifecycle": {"status": "disabled"}})),
        )
        .await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text);
    let r = resolve().await;
    let tool = &r.body["trace"]["tools"][0];
    assert_eq!(tool["toolId"], "weather@1.0.0", "{}", r.text);
    assert_eq!(
        tool["skippedReleases"][1],
        serde_json::json!({"toolId": "weather@1.1.0", "reason": "DISABLED"})
    );

    // A range no live release matches is refused on write, at its path.
    let bad = common::agent_json("nothing", &["weather@1.0.0", "weather@^3"]);
    let r = s.send(s.req(Method::POST, "/agents", &s.editor).json(&bad)).await;
    r.assert_invalid_at("/toolIds/1");
    assert!(
        r.text.contains("weather@1.0.0, weather@2.0.0"),
        "the live releases are listed: {}",
        r.text
    );
    let bad = common::agent_json("typo", &["weather@^one"]);
    s.send(s.req(Method::POST, "/agents", &s.editor).json(&bad))
        .await
        .assert_invalid_at("/toolIds/0");
}

/// `toolOverrides` map a range to a range, e.g. onto the 2.0 pre-releases.
#[tokio::test]
async fn an_override_maps_a_range_to_a_range() {
    let s = start().await;
    for id in ["weather@1.4.0", "weather@2.0.0-beta.2"] {
        let r = s
            .send(s.req(Method::PUT, &format!("/tools/{id}"), &s.editor).json(&tool_json(id)))
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    let mut agent = common::agent_json("beta-agent", &["weather@^1"]);
    agent["rolloutPolicy"] =
        serde_json::json!({"toolOverrides": {"weather@^1": "weather@^2.0.0-beta"}});
    s.create_agent(&agent).await;
    let body = serde_json::json!({"user": {"userId": "u"}});
    let r = s
        .send(s.req(Method::POST, "/agents/beta-agent/resolve?explain=true", &s.reader).json(&body))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let tool = &r.body["trace"]["tools"][0];
    assert_eq!(tool["toolId"], "weather@2.0.0-beta.2", "{}", r.text);
    assert_eq!(tool["replaces"], "weather@^1");
    assert_eq!(tool["range"], "weather@^2.0.0-beta");
}
