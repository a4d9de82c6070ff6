//! The admin-api binary under a local Lambda Runtime API, fed API Gateway HTTP API
//! (payload 2.0) events with IAM identities, on the table the custom resource wrote.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{ADMIN, READER, Stack, TOOL, admin_api, api, tool};
use registry_e2e::Table;
use serde_json::json;

#[tokio::test]
async fn the_api_reads_what_the_stack_registered_and_enforces_roles_on_it() {
    let table = Table::fresh().await;
    let stack = Stack::start(&table).await;
    stack.create(TOOL, "ConvertTool", &tool()).await;
    let api_fn = admin_api(&table).await;

    let (status, page) = api(&api_fn, "GET", "/tools", None, READER).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["items"][0]["toolId"], "convert_units@1.0.0", "{page}");

    // A reader may not change it; an unmapped identity gets nothing.
    let patch = json!({"description": "Changed by hand."});
    let (status, problem) =
        api(&api_fn, "PATCH", "/tools/convert_units@1.0.0", Some(&patch), READER).await;
    assert_eq!(status, 403, "{problem}");
    let stranger = "arn:aws:iam::999999999999:user/stranger";
    let (status, problem) = api(&api_fn, "GET", "/tools", None, stranger).await;
    assert_eq!(status, 403, "{problem}");

    // An admin reads it, at the version the stack wrote.
    let (status, body) = api(&api_fn, "GET", "/tools/convert_units@1.0.0", None, ADMIN).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["version"], 1);
}

/// The issuer's two documents are public routes of the API (decision 101): API Gateway
/// hands them over without an authorizer, and the admin API answers them, keys and
/// metadata naming the absolute https issuer the template gives it. The secret starts
/// as the template creates it (`{}`): the first start writes the ring with a
/// conditional write (decision 100), as the role allows. Any other route without an
/// authenticated caller is a 401.
#[tokio::test]
async fn the_issuer_documents_answer_unsigned_requests_and_nothing_else_does() {
    use registry_e2e::{Lambda, aws_json, events};
    const ISSUER: &str = "https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com";
    let table = Table::fresh().await;
    let name = format!("{}-keys", table.name);
    let body = json!({"Name": name, "SecretString": "{}"});
    let created =
        aws_json(&table.endpoint, "secretsmanager.CreateSecret", "secretsmanager", body).await;
    let secret = created["ARN"].as_str().unwrap_or_else(|| panic!("{created}")).to_owned();
    let api_fn = Lambda::start(
        "admin-api",
        &table,
        &[
            ("REGISTRY_ROLE_MAP", common::ROLE_MAP),
            ("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true"),
            ("REGISTRY_SIGNING_KEYS_SECRET", secret.as_str()),
            ("REGISTRY_TOKEN_ISSUER", ISSUER),
        ],
    )
    .await;
    // as API Gateway sends a route with authorization NONE: no authorizer, no signature
    let unsigned = |path: &str| {
        let mut event = events::http("GET", path, None, "");
        event["requestContext"].as_object_mut().unwrap().remove("authorizer");
        let headers = event["headers"].as_object_mut().unwrap();
        headers.remove("authorization");
        headers.remove("x-amz-date");
        event["routeKey"] = json!(format!("GET {path}"));
        event["requestContext"]["routeKey"] = json!(format!("GET {path}"));
        event
    };
    let (status, metadata) =
        events::http_reply(&api_fn.call(&unsigned("/.well-known/openid-configuration")).await);
    assert_eq!(status, 200, "{metadata}");
    assert_eq!(metadata["issuer"], ISSUER);
    assert_eq!(metadata["jwks_uri"], format!("{ISSUER}/.well-known/jwks.json"));
    let (status, jwks) =
        events::http_reply(&api_fn.call(&unsigned("/.well-known/jwks.json")).await);
    assert_eq!(status, 200, "{jwks}");
    let kids: Vec<&str> =
        jwks["keys"].as_array().unwrap().iter().filter_map(|k| k["kid"].as_str()).collect();
    assert_eq!(kids.len(), 1, "{jwks}");

    // the ring the first start wrote is the secret's current version, and the one served
    let body = json!({"SecretId": secret, "VersionStage": "AWSCURRENT"});
    let stored =
        aws_json(&table.endpoint, "secretsmanager.GetSecretValue", "secretsmanager", body).await;
    let ring = registry_token::KeyRing::parse(stored["SecretString"].as_str().unwrap()).unwrap();
    assert_eq!(ring.signing().kid(), kids[0]);

    for path in ["/tools", "/keys"] {
        let (status, problem) = events::http_reply(&api_fn.call(&unsigned(path)).await);
        assert_eq!(status, 401, "{path}: {problem}");
    }
}
