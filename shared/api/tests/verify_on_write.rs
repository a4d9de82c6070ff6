#![cfg(feature = "aws")]
#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `?verify=true` on tool writes, against the local AWS-API server the test command
//! starts (moto), which serves Lambda's GetFunction: a tool whose function does not
//! exist is refused at `/lambdaArn` and nothing is written.

mod common;

use common::{Server, start_with_registry, tool_json};
use registry_api::ServerLimits;
use reqwest::{Method, StatusCode};

async fn start() -> Server {
    let endpoint = registry_store_dynamodb::local::endpoint().unwrap().to_owned();
    start_with_registry(ServerLimits::default(), move |registry| {
        registry.with_aws(registry_aws::Aws::new(registry_aws::Endpoints {
            lambda: Some(endpoint),
            ..registry_aws::Endpoints::default()
        }))
    })
    .await
}

#[tokio::test]
async fn a_tool_whose_lambda_fails_verification_is_not_written() {
    let s = start().await;
    let tool = tool_json("weather-basic");

    let r = s.send(s.req(Method::POST, "/tools?verify=true", &s.editor).json(&tool)).await;
    r.assert_invalid_at("/lambdaArn");
    assert!(r.text.contains("FUNCTION_NOT_FOUND"), "{}", r.text);
    let r =
        s.send(s.req(Method::PUT, "/tools/weather-basic?verify=true", &s.editor).json(&tool)).await;
    r.assert_invalid_at("/lambdaArn");
    assert_eq!(s.get("/tools/weather-basic").await.status, StatusCode::NOT_FOUND);

    let r = s
        .send(s.req(Method::PUT, "/tools/weather-basic?verify=maybe", &s.editor).json(&tool))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert!(r.text.contains("verify"), "{}", r.text);

    // Without the flag (or with `verify=false`) the write does not call AWS.
    let r = s.send(s.req(Method::POST, "/tools?verify=false", &s.editor).json(&tool)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
}
