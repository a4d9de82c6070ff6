//! Drives the Lambda's router with every example event in `events/`, converted the way
//! lambda_http converts API Gateway payloads (the request context stays in the request
//! extensions), against a real DynamoDB-API server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use http::StatusCode;
use serde_json::Value;
use tower::ServiceExt;

/// Sends one event file through the router; returns status, content type and JSON body.
async fn invoke(app: &axum::Router, file: &str) -> (StatusCode, String, Value) {
    let path = format!("{}/{file}", common::EVENTS_DIR);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let request = lambda_http::request::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{file}: body is not JSON ({e}): {bytes:?}"));
    (status, content_type, body)
}

/// Expected status of each event, in the order they run (on one table).
const EXPECTED: [(&str, StatusCode); 6] = [
    ("healthz.json", StatusCode::OK),
    ("no-identity-401.json", StatusCode::UNAUTHORIZED),
    ("unmapped-identity-403.json", StatusCode::FORBIDDEN),
    ("reader-write-403.json", StatusCode::FORBIDDEN),
    ("create-tool-jwt-editor.json", StatusCode::CREATED),
    ("list-agents-iam-admin.json", StatusCode::OK),
];

#[test]
fn every_event_file_has_an_expectation() {
    let mut files: Vec<String> = std::fs::read_dir(common::EVENTS_DIR)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut expected: Vec<&str> = EXPECTED.iter().map(|(f, _)| *f).collect();
    expected.sort_unstable();
    assert_eq!(files, expected);
}

#[tokio::test]
async fn each_event_gets_its_response() {
    let app = common::app().await;
    for (file, status) in EXPECTED {
        let (got, content_type, body) = invoke(&app, file).await;
        assert_eq!(got, status, "{file}: {body}");
        if !status.is_success() {
            assert_eq!(content_type, "application/problem+json", "{file}");
            assert_eq!(body["status"], status.as_u16(), "{file}: {body}");
        }
        match file {
            "no-identity-401.json" => {
                assert_eq!(body["code"], "UNAUTHENTICATED", "{body}");
                assert!(body["detail"].as_str().unwrap().contains("no caller identity"), "{body}");
            }
            "unmapped-identity-403.json" => {
                assert_eq!(body["code"], "FORBIDDEN", "{body}");
                let detail = body["detail"].as_str().unwrap();
                assert!(detail.contains("arn:aws:iam::210987654321:user/mallory"), "{body}");
                assert!(detail.contains("no role"), "{body}");
            }
            "reader-write-403.json" => {
                assert_eq!(body["code"], "FORBIDDEN", "{body}");
                assert!(body["detail"].as_str().unwrap().contains("editor"), "{body}");
            }
            "create-tool-jwt-editor.json" => {
                // The reader's refused write changed nothing: this create is new (201).
                assert_eq!(body["toolId"], "currency-converter", "{body}");
                assert_eq!(body["version"], 1, "{body}");
                assert_eq!(body["createdBy"], "3f1c9a2e-7b4d-4e8a-9c61-0d2b5e8f7a14", "{body}");
            }
            "list-agents-iam-admin.json" => {
                assert_eq!(body["items"], serde_json::json!([]), "{body}");
                assert!(body.get("nextCursor").is_none_or(Value::is_null), "{body}");
            }
            _ => {}
        }
    }
}

#[tokio::test]
async fn the_created_tool_is_listed_for_an_iam_admin() {
    let app = common::app().await;
    assert_eq!(invoke(&app, "create-tool-jwt-editor.json").await.0, StatusCode::CREATED);
    // Same event again: the id exists now.
    let (status, _, body) = invoke(&app, "create-tool-jwt-editor.json").await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    // The admin's list-agents event, pointed at /tools.
    let path = format!("{}/list-agents-iam-admin.json", common::EVENTS_DIR);
    let text = std::fs::read_to_string(path).unwrap().replace("/agents", "/tools");
    let request = lambda_http::request::from_str(&text).unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    let ids: Vec<&str> =
        body["items"].as_array().unwrap().iter().map(|t| t["toolId"].as_str().unwrap()).collect();
    assert_eq!(ids, ["currency-converter"]);
    assert_eq!(body["items"][0]["createdBy"], "3f1c9a2e-7b4d-4e8a-9c61-0d2b5e8f7a14");
}
