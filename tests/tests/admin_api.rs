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
