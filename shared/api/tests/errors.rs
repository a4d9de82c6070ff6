#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Every error status through the real router: 400, 401, 403, 404, 409, 412, 413, 415,
//! 428, always as problem+json.

mod common;

use common::{Reply, agent_json, mcp_tool_json, start, tool_json};
use reqwest::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn missing_or_bad_token_is_401_with_www_authenticate() {
    let s = start().await;
    for token in ["", "not-a-token"] {
        let r = s.send(s.req(Method::POST, "/tools", token).json(&tool_json("t1"))).await;
        r.assert_problem(401, "UNAUTHENTICATED");
        assert!(r.headers["www-authenticate"].to_str().unwrap().starts_with("Bearer"));
        s.send(s.req(Method::GET, "/tools", token)).await.assert_problem(401, "UNAUTHENTICATED");
    }
    let r = s
        .send(s.req(Method::GET, "/tools", "").header("authorization", "Basic Zm9vOmJhcg=="))
        .await;
    r.assert_problem(401, "UNAUTHENTICATED");
}

#[tokio::test]
async fn roles_are_enforced_with_403() {
    let s = start().await;
    // Reader cannot write, even with a bad body (403 comes first).
    let r = s.send(s.req(Method::POST, "/tools", &s.reader).json(&tool_json("t1"))).await;
    r.assert_problem(403, "FORBIDDEN");
    let r = s
        .send(
            s.req(Method::POST, "/tools", &s.reader)
                .body("{")
                .header("content-type", "application/json"),
        )
        .await;
    r.assert_problem(403, "FORBIDDEN");
    s.create_tool(&tool_json("t1")).await;
    let r = s.send(s.req(Method::PUT, "/tools/t1", &s.reader).json(&tool_json("t1"))).await;
    r.assert_problem(403, "FORBIDDEN");
    let r = s.patch("/tools/t1", &s.reader, "\"1\"", &json!({})).await;
    r.assert_problem(403, "FORBIDDEN");
    // Editor cannot delete.
    let r = s.send(s.req(Method::DELETE, "/tools/t1", &s.editor).header("if-match", "\"1\"")).await;
    r.assert_problem(403, "FORBIDDEN");
    // Editor cannot retire; admin can.
    let retire = json!({"lifecycle": {"status": "retired"}});
    let r = s.patch("/tools/t1", &s.editor, "\"1\"", &retire).await;
    r.assert_problem(403, "FORBIDDEN");
    let r = s.patch("/tools/t1", &s.admin, "\"1\"", &retire).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    // Editor may disable and re-enable.
    s.create_tool(&tool_json("t2")).await;
    for (v, status) in [(1, "disabled"), (2, "active"), (3, "deprecated"), (4, "enabled")] {
        let r = s
            .patch(
                "/tools/t2",
                &s.editor,
                &format!("\"{v}\""),
                &json!({"lifecycle": {"status": status}}),
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{status}: {}", r.text);
    }
    assert_eq!(s.get("/tools/t2").await.body["lifecycle"]["status"], "active");
}

#[tokio::test]
async fn retired_definitions_cannot_change_but_can_be_deleted() {
    let s = start().await;
    let mut tool = tool_json("t1");
    tool["lifecycle"] = json!({"status": "retired"});
    let r = s.admin_json(Method::POST, "/tools", &tool).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // Same content again is not a change.
    let r = s.admin_json(Method::PUT, "/tools/t1", &tool).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["version"], 1);
    // Any change is a 409, also reviving it.
    tool["lifecycle"] = json!({"status": "active"});
    s.admin_json(Method::PUT, "/tools/t1", &tool).await.assert_problem(409, "CONFLICT");
    let r = s.patch("/tools/t1", &s.admin, "\"1\"", &json!({"description": "New."})).await;
    r.assert_problem(409, "CONFLICT");
    // A retired tool cannot be bound to an agent.
    let r =
        s.send(s.req(Method::POST, "/agents", &s.editor).json(&agent_json("a1", &["t1"]))).await;
    r.assert_invalid_at("/toolIds/0");
    let r = s.send(s.req(Method::DELETE, "/tools/t1", &s.admin).header("if-match", "\"1\"")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn references_must_exist_and_deleting_a_used_tool_is_409() {
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    s.create_tool(&tool_json("t2")).await;
    let mut agent = agent_json("a1", &["t1", "ghost", "t2"]);
    agent["rolloutPolicy"] = json!({"toolOverrides": {"t2": "phantom"}});
    let r = s.send(s.req(Method::POST, "/agents", &s.editor).json(&agent)).await;
    r.assert_invalid_at("/toolIds/1");
    r.assert_invalid_at("/rolloutPolicy/toolOverrides/t2");
    assert_eq!(r.error_paths().len(), 2, "{}", r.text);

    s.create_agent(&agent_json("a1", &["t1"])).await;
    s.create_agent(&agent_json("a2", &["t1", "t2"])).await;
    let r = s.send(s.req(Method::DELETE, "/tools/t1", &s.admin).header("if-match", "\"1\"")).await;
    r.assert_problem(409, "IN_USE");
    assert_eq!(r.body["agents"], json!(["a1", "a2"]));
    assert!(r.body["detail"].as_str().unwrap().contains("a1"));
    // Retire first, then delete works.
    let r =
        s.patch("/tools/t1", &s.admin, "\"1\"", &json!({"lifecycle": {"status": "retired"}})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = s.send(s.req(Method::DELETE, "/tools/t1", &s.admin).header("if-match", "\"2\"")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
}

#[tokio::test]
async fn preconditions_412_and_428() {
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    let patch = json!({"description": "Changed."});
    // 428 without If-Match on PATCH and DELETE.
    let r = s.send(s.req(Method::PATCH, "/tools/t1", &s.editor).json(&patch)).await;
    r.assert_problem(428, "PRECONDITION_REQUIRED");
    let r = s.send(s.req(Method::DELETE, "/tools/t1", &s.admin)).await;
    r.assert_problem(428, "PRECONDITION_REQUIRED");
    // 412 on mismatch for PATCH, DELETE and conditional PUT.
    let r = s.patch("/tools/t1", &s.editor, "\"7\"", &patch).await;
    r.assert_problem(412, "VERSION_MISMATCH");
    assert_eq!(r.body["currentVersion"], 1);
    let r = s
        .send(
            s.req(Method::PATCH, "/tools/t1", &s.editor)
                .json(&json!({"version": 3, "description": "x"})),
        )
        .await;
    r.assert_problem(412, "VERSION_MISMATCH");
    let r = s.send(s.req(Method::DELETE, "/tools/t1", &s.admin).header("if-match", "\"2\"")).await;
    r.assert_problem(412, "VERSION_MISMATCH");
    let r = s.write(Method::PUT, "/tools/t1", &s.editor, "\"2\"", &tool_json("t1")).await;
    r.assert_problem(412, "VERSION_MISMATCH");
    let r = s.write(Method::PUT, "/tools/new", &s.editor, "\"1\"", &tool_json("new")).await;
    r.assert_problem(412, "VERSION_MISMATCH");
    let r = s.patch("/tools/t1", &s.editor, "W/\"1\"", &patch).await;
    r.assert_problem(412, "VERSION_MISMATCH");
    // A malformed If-Match is a 400, a missing definition a 404.
    let r = s.patch("/tools/t1", &s.editor, "one", &patch).await;
    r.assert_problem(400, "BAD_REQUEST");
    let r = s.patch("/tools/none", &s.editor, "\"1\"", &patch).await;
    r.assert_problem(404, "NOT_FOUND");
    // Nothing changed.
    assert_eq!(s.get("/tools/t1").await.body["version"], 1);
}

#[tokio::test]
async fn body_errors_are_400_413_415_never_500() {
    let s = start().await;
    let send_raw = |path: &str, body: &str, ct: &str| {
        s.req(Method::POST, path, &s.editor)
            .header("content-type", ct.to_owned())
            .body(body.to_owned())
    };
    // Truncated and empty JSON.
    let r = s
        .send(send_raw("/tools", r#"{"toolId": "t1", "executionType": "lam"#, "application/json"))
        .await;
    r.assert_problem(400, "MALFORMED_JSON");
    s.send(send_raw("/tools", "", "application/json")).await.assert_problem(400, "MALFORMED_JSON");
    s.send(send_raw("/agents", "[1,2", "application/json"))
        .await
        .assert_problem(400, "MALFORMED_JSON");
    // Type errors carry the JSON Pointer of the bad value.
    let mut agent = agent_json("a1", &[]);
    agent["toolIds"] = json!(5);
    s.send(s.req(Method::POST, "/agents", &s.editor).json(&agent))
        .await
        .assert_invalid_at("/toolIds");
    agent["toolIds"] = json!(["ok", 5]);
    s.send(s.req(Method::POST, "/agents", &s.editor).json(&agent))
        .await
        .assert_invalid_at("/toolIds/1");
    let mut tool = tool_json("t1");
    tool["executionTimeout"] = json!("slow");
    s.send(s.req(Method::POST, "/tools", &s.editor).json(&tool))
        .await
        .assert_invalid_at("/executionTimeout");
    tool = tool_json("t1");
    tool.as_object_mut().unwrap().remove("executionType");
    s.send(s.req(Method::POST, "/tools", &s.editor).json(&tool))
        .await
        .assert_invalid_at("/executionType");
    s.send(s.req(Method::POST, "/tools", &s.editor).json(&json!([1])))
        .await
        .assert_problem(400, "VALIDATION_FAILED");
    // Deeply nested JSON is refused, not a crash.
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    s.send(send_raw("/agents", &deep, "application/json"))
        .await
        .assert_problem(400, "MALFORMED_JSON");
    // 413 over 1 MiB.
    let mut big = tool_json("big");
    big["code"] = json!("x".repeat(1_100_000));
    let r = s.send(s.req(Method::POST, "/tools", &s.editor).json(&big)).await;
    r.assert_problem(413, "PAYLOAD_TOO_LARGE");
    // 415 for non-JSON content types.
    let r = s.send(send_raw("/tools", &tool_json("t1").to_string(), "text/plain")).await;
    r.assert_problem(415, "UNSUPPORTED_MEDIA_TYPE");
    let r =
        s.send(s.req(Method::POST, "/tools", &s.editor).body(tool_json("t1").to_string())).await;
    r.assert_problem(415, "UNSUPPORTED_MEDIA_TYPE");
    // A non-object merge patch.
    s.create_tool(&tool_json("t1")).await;
    let r = s.patch("/tools/t1", &s.editor, "\"1\"", &json!([1])).await;
    r.assert_problem(400, "VALIDATION_FAILED");
    let r = s.patch("/tools/t1", &s.editor, "\"1\"", &json!({"version": "one"})).await;
    r.assert_invalid_at("/version");
    // A patch that breaks the type of a field names it.
    let r = s
        .patch("/tools/t1", &s.editor, "\"1\"", &json!({"supportedAgentFrameworks": "bedrock"}))
        .await;
    r.assert_invalid_at("/supportedAgentFrameworks");
    assert_eq!(s.get("/tools/t1").await.body["version"], 1);
}

#[tokio::test]
async fn ids_conflicts_and_path_id_rules() {
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    let r = s.send(s.req(Method::POST, "/tools", &s.editor).json(&tool_json("t1"))).await;
    r.assert_problem(409, "CONFLICT");
    let r = s.send(s.req(Method::PUT, "/tools/t2", &s.editor).json(&tool_json("t1"))).await;
    r.assert_invalid_at("/toolId");
    let r = s.send(s.req(Method::PUT, "/agents/a9", &s.editor).json(&agent_json("a1", &[]))).await;
    r.assert_invalid_at("/agentId");
    let r = s.patch("/tools/t1", &s.editor, "\"1\"", &json!({"toolId": "other"})).await;
    r.assert_invalid_at("/toolId");
    // Every violation at once.
    let mut tool = tool_json("t3");
    tool["description"] = json!("");
    tool["executionTimeout"] = json!(0);
    tool["acessRules"] = json!([]);
    let r = s.send(s.req(Method::POST, "/tools", &s.editor).json(&tool)).await;
    r.assert_invalid_at("/description");
    r.assert_invalid_at("/executionTimeout");
    r.assert_invalid_at("/acessRules");
}

/// A repeated key is malformed JSON at the key's pointer, never last-one-wins: on a
/// definition, inside tags, in a merge patch and in a resolution context. Nothing is
/// stored.
#[tokio::test]
async fn duplicate_keys_are_refused_everywhere() {
    let s = start().await;
    let created = s.send(s.req(Method::POST, "/tools", &s.editor).json(&tool_json("t1"))).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let agent = agent_json("a1", &["t1"]).to_string();
    assert!(agent.starts_with('{'));
    let raw = |method: Method, path: &str, body: String| {
        s.req(method, path, &s.editor)
            .header("content-type", "application/json")
            .header("if-match", "\"1\"")
            .body(body)
    };
    let cases = [
        (
            Method::POST,
            "/agents",
            format!(
                r#"{{"accessRules":[{{"effect":"deny","condition":"true","effect":"allow"}}],{}"#,
                &agent[1..]
            ),
            "/accessRules/0/effect",
        ),
        (
            Method::POST,
            "/agents",
            format!(r#"{{"tags":{{"a/b":"1","a/b":"2"}},{}"#, &agent[1..]),
            "/tags/a~1b",
        ),
        (
            Method::PATCH,
            "/tools/t1",
            r#"{"description":"x","description":"y"}"#.into(),
            "/description",
        ),
        (
            Method::POST,
            "/access/evaluate",
            r#"{"rules":[],"context":{"user":{"userType":"a","userType":"b"}}}"#.into(),
            "/context/user/userType",
        ),
    ];
    for (method, path, body, pointer) in cases {
        let r = s.send(raw(method, path, body)).await;
        r.assert_problem(400, "MALFORMED_JSON");
        assert_eq!(r.error_paths(), vec![pointer.to_owned()], "{path}: {}", r.text);
    }
    assert_eq!(s.get("/agents/a1").await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get("/tools/t1").await.body["version"], 1);
}

/// Validation runs once, before the attempts, but a precondition still answers first:
/// an invalid body with a stale or `*` `If-Match` is a 412, as before.
#[tokio::test]
async fn a_failed_precondition_answers_before_an_invalid_body() {
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    let mut invalid = tool_json("t1");
    invalid["name"] = json!("not a valid name!");
    let put = |path: &'static str, tag: &'static str| {
        s.req(Method::PUT, path, &s.editor).header("if-match", tag).json(&invalid)
    };
    s.send(put("/tools/t1", "\"7\"")).await.assert_problem(412, "VERSION_MISMATCH");
    let r = s.send(put("/tools/t2", "*")).await;
    r.assert_problem(412, "VERSION_MISMATCH");
    assert_eq!(r.body["detail"], "If-Match: * but tool `t2` does not exist", "{}", r.text);
    s.send(put("/tools/t1", "\"1\"")).await.assert_invalid_at("/name");
    let patch = |path: &'static str| {
        s.req(Method::PATCH, path, &s.editor).header("if-match", "*").json(&json!([1]))
    };
    s.send(patch("/tools/t2")).await.assert_problem(412, "VERSION_MISMATCH");
    s.send(patch("/tools/t1")).await.assert_invalid_at("");
}

/// Two `Authorization` headers are ambiguous: a 400 whichever comes first, valid or not,
/// for readers and writers alike, and nothing is written.
#[tokio::test]
async fn more_than_one_authorization_header_is_a_400_whatever_the_order() {
    let s = start().await;
    let admin = format!("Bearer {}", s.admin);
    let reader = format!("Bearer {}", s.reader);
    let orders = [
        [admin.as_str(), "Bearer not-a-token"],
        ["Bearer not-a-token", admin.as_str()],
        [reader.as_str(), admin.as_str()],
        [admin.as_str(), reader.as_str()],
        [admin.as_str(), admin.as_str()],
    ];
    for [first, second] in orders {
        let r = s
            .send(
                s.client
                    .post(format!("{}/tools", s.base))
                    .header("authorization", first)
                    .header("authorization", second)
                    .json(&tool_json("t1")),
            )
            .await;
        r.assert_problem(400, "BAD_REQUEST");
        assert_eq!(r.error_paths(), vec!["/headers/Authorization"], "{}", r.text);
        let r = s
            .send(
                s.client
                    .get(format!("{}/tools", s.base))
                    .header("authorization", first)
                    .header("authorization", second),
            )
            .await;
        r.assert_problem(400, "BAD_REQUEST");
    }
    assert_eq!(s.get("/tools/t1").await.status, StatusCode::NOT_FOUND);
}

/// A body's media type says what it means: a merge patch (or any type but JSON) sent to
/// a PUT or a POST is a 415, never a full replacement; PATCH takes both JSON types.
#[tokio::test]
async fn put_and_post_take_only_json_and_patch_takes_merge_patch() {
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    for ct in [
        "application/merge-patch+json",
        "application/json-patch+json",
        "application/vnd.api+json",
        "text/json",
    ] {
        let r = s
            .send(
                s.req(Method::PUT, "/tools/t1", &s.editor)
                    .header("content-type", ct)
                    .body(json!({"description": "Replaced?"}).to_string()),
            )
            .await;
        r.assert_problem(415, "UNSUPPORTED_MEDIA_TYPE");
        let r = s
            .send(
                s.req(Method::POST, "/tools", &s.editor)
                    .header("content-type", ct)
                    .body(tool_json("t2").to_string()),
            )
            .await;
        r.assert_problem(415, "UNSUPPORTED_MEDIA_TYPE");
    }
    assert_eq!(s.get("/tools/t1").await.body["version"], 1);
    assert_eq!(s.get("/tools/t2").await.status, StatusCode::NOT_FOUND);
    let r = s
        .send(
            s.req(Method::PATCH, "/tools/t1", &s.editor)
                .header("if-match", "\"1\"")
                .header("content-type", "application/json-patch+json")
                .body("[]"),
        )
        .await;
    r.assert_problem(415, "UNSUPPORTED_MEDIA_TYPE");
    for (tag, ct) in [("\"1\"", "application/merge-patch+json"), ("\"2\"", "application/json")] {
        let r = s
            .send(
                s.req(Method::PATCH, "/tools/t1", &s.editor)
                    .header("if-match", tag)
                    .header("content-type", ct)
                    .body(json!({"description": format!("Patched as {ct}.")}).to_string()),
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{ct}: {}", r.text);
    }
}

/// An events cursor the server never issued is a 400 at `/after`, never a 500: one past
/// the largest sequence number a store holds (`i64`), past `u64`, negative, not a
/// number, empty, not base64. The largest one a store holds is a cursor with nothing after it.
#[tokio::test]
async fn event_cursors_no_store_can_hold_are_a_400_at_after_not_a_500() {
    use base64::Engine;
    let cursor = |text: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text);
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    let bad = [
        "ev1:9223372036854775808",
        "ev1:18446744073709551615",
        "ev1:99999999999999999999999",
        "ev1:-1",
        "ev1:+1",
        "ev1:abc",
        "ev1:",
    ];
    for after in bad.map(cursor).iter().map(String::as_str).chain(["", "not-a-cursor", "%20"]) {
        let r = s.get(&format!("/events?after={after}&limit=10")).await;
        r.assert_invalid_at("/after");
        assert!(r.body["errors"][0]["message"].as_str().unwrap().contains("cursor"), "{}", r.text);
    }
    let last = cursor("ev1:9223372036854775807");
    let r = s.get(&format!("/events?after={last}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["items"], json!([]));
    assert_eq!(r.body["cursor"], last);
    // The cursors it issues still page.
    let first = s.get("/events?limit=1").await;
    assert_eq!(first.body["items"][0]["id"], "t1", "{}", first.text);
    let next = s.get(&format!("/events?after={}", first.body["cursor"].as_str().unwrap())).await;
    assert_eq!(
        (next.status, next.body["items"].as_array().map(Vec::len)),
        (StatusCode::OK, Some(0))
    );
}

/// What a type error says, on every route that reads a body: the pointer and the expected
/// JSON shape; never a secret member's value, never more than a short excerpt of a long
/// value, never a Rust type name.
#[tokio::test]
async fn type_errors_name_the_pointer_never_a_secret_a_long_value_or_a_rust_type() {
    const SECRET: &str = "s3cr3t-never-echoed";
    let long = "Z".repeat(20_000);
    let s = start().await;
    s.create_tool(&tool_json("t1")).await;
    s.create_tool(&mcp_tool_json("m1", "first-secret")).await;
    s.create_agent(&agent_json("a1", &["t1"])).await;
    let check = |r: &Reply, path: &str| {
        r.assert_invalid_at(path);
        for leak in
            [SECRET, &long[..200], "BedrockSettings", "GuardrailConfiguration", "struct ", "::"]
        {
            assert!(!r.text.contains(leak), "{leak:?} in {}", r.text);
        }
        assert!(r.text.len() < 1000, "{} bytes: {}", r.text.len(), r.text);
    };
    // A list-typed client secret, written whole (POST, PUT) or as a merge patch.
    let mut tool = mcp_tool_json("m2", "x");
    tool["auth"]["clientSecret"] = json!([SECRET]);
    let r = s.send(s.req(Method::POST, "/tools", &s.editor).json(&tool)).await;
    check(&r, "/auth/clientSecret");
    assert!(r.text.contains("expected a string, got an array"), "{}", r.text);
    tool["toolId"] = json!("m1");
    let put = s.req(Method::PUT, "/tools/m1", &s.editor).header("if-match", "\"1\"");
    check(&s.send(put.json(&tool)).await, "/auth/clientSecret");
    for secret in [json!([SECRET]), json!({SECRET: SECRET}), json!(735_901_233)] {
        let patch = json!({"auth": {"clientSecret": secret}});
        let r = s
            .send(
                s.req(Method::PATCH, "/tools/m1", &s.editor)
                    .header("if-match", "\"1\"")
                    .header("content-type", "application/merge-patch+json")
                    .body(patch.to_string()),
            )
            .await;
        check(&r, "/auth/clientSecret");
        assert!(!r.text.contains("735901233"), "{}", r.text);
    }
    // A resolve context with an unknown user member carrying 20 KB, and with long values
    // where a list or an object belongs.
    let resolve = |body: serde_json::Value| {
        s.send(s.req(Method::POST, "/agents/a1/resolve", &s.reader).json(&body))
    };
    let r = resolve(json!({"user": {"userId": "u-1", "foo": long}})).await;
    check(&r, "/user/foo");
    assert!(r.text.contains("expected one of `userId`"), "{}", r.text);
    let r =
        resolve(json!({"user": {"userId": "u-1", "guardrailConfiguration": {"x": long}}})).await;
    check(&r, "/user/guardrailConfiguration");
    check(&resolve(json!({"user": {"roles": long}})).await, "/user/roles");
    check(&resolve(json!({"account": long})).await, "/account");
    // The same context in an authorize call.
    let call = json!({"function": "get_weather", "arguments": {"city": "Paris"}});
    let authorize = |context: serde_json::Value| {
        let body = json!({"context": context, "call": call});
        s.send(s.req(Method::POST, "/tools/t1/authorize", &s.reader).json(&body))
    };
    check(&authorize(json!({"user": {"foo": long}})).await, "/context/user/foo");
    check(&authorize(json!({"request": {"time": long}})).await, "/context/request/time");
    check(&authorize(json!({"user": {"email": {"x": long}}})).await, "/context/user/email");
    // Nothing was written.
    assert_eq!(s.get("/tools/m1").await.body["version"], 1);
    assert_eq!(s.get("/tools/m2").await.status, StatusCode::NOT_FOUND);
}
