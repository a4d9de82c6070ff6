//! The custom-resource binary under a local Lambda Runtime API, on a local DynamoDB-API
//! table, answering a stand-in for CloudFormation's pre-signed response URL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, SystemTime};

use common::{AGENT, Stack, TOOL, agent, assert_failed, assert_success, tool};
use registry_e2e::events::{Request, STACK_ID};
use registry_e2e::{Answer, Table};
use serde_json::json;

#[tokio::test]
async fn create_update_delete_with_redeliveries_and_the_documented_response() {
    let table = Table::fresh().await;
    let stack = Stack::start(&table).await;

    let created = stack.create(TOOL, "ConvertTool", &tool()).await;
    let put = &created.put;
    assert_eq!(put.content_type.as_deref(), Some(""), "empty Content-Type, as S3 signs it");
    assert_eq!(put.body["PhysicalResourceId"], "convert_units@1.0.0");
    assert_eq!(put.body["StackId"], STACK_ID);
    assert_eq!(put.body["RequestId"], created.event["RequestId"]);
    assert_eq!(put.body["LogicalResourceId"], "ConvertTool");
    assert_eq!(put.body["Data"]["Version"], "1");
    assert_eq!(put.body["Data"]["ETag"], "\"1\"");
    assert!(put.body.get("Reason").is_none(), "{}", put.body);

    // Redelivered Create: the same answer, nothing written.
    let again = stack.redeliver(&created.event, &created.name).await;
    assert_success(&again.put);
    assert_eq!(again.put.body["Data"]["Version"], "1");

    let agent_created = stack.create(AGENT, "TravelAgent", &agent()).await;
    assert_eq!(agent_created.put.body["PhysicalResourceId"], "travel-helper");
    assert_eq!(agent_created.put.body["Data"]["ActionGroups"], "convert_units");

    // Update: a rule changes; the version moves; a redelivery changes nothing.
    let mut changed = agent();
    changed["accessRules"][0]["condition"] = json!("user.userType == 'external-user'");
    let updated = stack
        .send("Update", AGENT, "TravelAgent", &changed, Some("travel-helper"), Some(&agent()))
        .await;
    assert_success(&updated.put);
    assert_eq!(updated.put.body["PhysicalResourceId"], "travel-helper");
    assert_eq!(updated.put.body["Data"]["Version"], "2");
    let again = stack.redeliver(&updated.event, &updated.name).await;
    assert_success(&again.put);
    assert_eq!(again.put.body["Data"]["Version"], "2");

    // Delete agent, then tool; redelivered Deletes succeed.
    let deleted =
        stack.send("Delete", AGENT, "TravelAgent", &changed, Some("travel-helper"), None).await;
    assert_success(&deleted.put);
    assert_eq!(deleted.put.body["PhysicalResourceId"], "travel-helper");
    let deleted_tool =
        stack.send("Delete", TOOL, "ConvertTool", &tool(), Some("convert_units@1.0.0"), None).await;
    assert_success(&deleted_tool.put);
    for sent in [&deleted, &deleted_tool] {
        let again = stack.redeliver(&sent.event, &sent.name).await;
        assert_success(&again.put);
    }

    // Recreating writes version 2 (a survivor would have been unchanged at version 1).
    let recreated = stack.create(TOOL, "ConvertTool", &tool()).await;
    assert_eq!(recreated.put.body["PhysicalResourceId"], "convert_units@1.0.0");
    assert_eq!(recreated.put.body["Data"]["Version"], "2");
}

#[tokio::test]
async fn bad_properties_fail_naming_every_problem_and_the_rollback_delete_succeeds() {
    let table = Table::fresh().await;
    let stack = Stack::start(&table).await;
    let mut bad = tool();
    bad["name"] = json!("convert units!");
    bad["description"] = json!("");
    bad["lambdaArn"] = json!("not-an-arn");
    let failed = stack.send("Create", TOOL, "ConvertTool", &bad, None, None).await;
    let reason = assert_failed(&failed.put);
    for path in ["/name", "/description", "/lambdaArn"] {
        assert!(reason.contains(&format!("{path}: ")), "{path} missing from: {reason}");
    }
    assert!(!reason.contains('\n'), "one line: {reason}");
    let placeholder = failed.put.body["PhysicalResourceId"].as_str().unwrap().to_owned();
    assert!(placeholder.starts_with("unregistered/"), "{placeholder}");

    // A type error is named by path too (a string where a number is needed).
    let mut typed = tool();
    typed["executionTimeout"] = json!("thirty");
    let reason = assert_failed(&stack.send("Create", TOOL, "T2", &typed, None, None).await.put);
    assert!(reason.contains("/executionTimeout: "), "{reason}");

    // No properties at all.
    let reason = assert_failed(&stack.send("Create", AGENT, "A", &json!({}), None, None).await.put);
    assert!(reason.contains("/agentId: "), "{reason}");

    // Rollback: CloudFormation deletes the failed resource by the id it was given.
    let rollback = stack.send("Delete", TOOL, "ConvertTool", &bad, Some(&placeholder), None).await;
    assert_success(&rollback.put);
    assert_eq!(rollback.put.body["PhysicalResourceId"], placeholder);
}

#[tokio::test]
async fn a_failed_agent_create_rolls_back_cleanly() {
    let table = Table::fresh().await;
    let stack = Stack::start(&table).await;
    stack.create(TOOL, "ConvertTool", &tool()).await;
    let mut agent_props = agent();
    agent_props["toolIds"] = json!(["convert_units@1.0.0", "missing_tool@1.0.0"]);
    let failed = stack.send("Create", AGENT, "TravelAgent", &agent_props, None, None).await;
    let reason = assert_failed(&failed.put);
    assert!(reason.contains("/toolIds/1: ") && reason.contains("missing_tool@1.0.0"), "{reason}");

    // Rollback deletes in reverse order: the agent (never created), then the tool.
    let placeholder = failed.put.body["PhysicalResourceId"].as_str().unwrap();
    let agent_gone =
        stack.send("Delete", AGENT, "TravelAgent", &agent_props, Some(placeholder), None).await;
    assert_success(&agent_gone.put);
    let tool_gone =
        stack.send("Delete", TOOL, "ConvertTool", &tool(), Some("convert_units@1.0.0"), None).await;
    assert_success(&tool_gone.put);
    // Nothing left: a new Create writes version 2 (versions continue after a delete;
    // had the tool survived, the Create would have been unchanged at version 1).
    let again = stack.create(TOOL, "ConvertTool", &tool()).await;
    assert_eq!(again.put.body["Data"]["Version"], "2");
}

#[tokio::test]
async fn a_tool_still_used_by_an_agent_is_not_deleted_and_the_reason_names_the_agent() {
    let table = Table::fresh().await;
    let stack = Stack::start(&table).await;
    stack.create(TOOL, "ConvertTool", &tool()).await;
    stack.create(AGENT, "TravelAgent", &agent()).await;
    let refused =
        stack.send("Delete", TOOL, "ConvertTool", &tool(), Some("convert_units@1.0.0"), None).await;
    let reason = assert_failed(&refused.put);
    assert!(reason.contains("travel-helper"), "{reason}");
    assert_eq!(refused.put.body["PhysicalResourceId"], "convert_units@1.0.0");
    // After the agent goes, the retried Delete succeeds.
    assert_success(
        &stack
            .send("Delete", AGENT, "TravelAgent", &agent(), Some("travel-helper"), None)
            .await
            .put,
    );
    assert_success(&stack.redeliver(&refused.event, &refused.name).await.put);
}

#[tokio::test]
async fn an_id_change_is_a_replacement_and_the_old_one_is_deleted_afterwards() {
    let table = Table::fresh().await;
    let stack = Stack::start(&table).await;
    stack.create(TOOL, "ConvertTool", &tool()).await;
    let mut v2 = tool();
    v2["toolId"] = json!("convert_units@2.0.0");
    let replaced = stack
        .send("Update", TOOL, "ConvertTool", &v2, Some("convert_units@1.0.0"), Some(&tool()))
        .await;
    assert_success(&replaced.put);
    assert_eq!(replaced.put.body["PhysicalResourceId"], "convert_units@2.0.0");
    assert_eq!(replaced.put.body["Data"]["Version"], "1");
    let old =
        stack.send("Delete", TOOL, "ConvertTool", &tool(), Some("convert_units@1.0.0"), None).await;
    assert_success(&old.put);
    // The new one is still there: an Update on it is unchanged (version 1).
    let same = stack
        .send("Update", TOOL, "ConvertTool", &v2, Some("convert_units@2.0.0"), Some(&v2))
        .await;
    assert_eq!(same.put.body["Data"]["Version"], "1");
}

#[tokio::test]
async fn a_definition_of_someone_else_is_neither_taken_over_nor_deleted_on_rollback() {
    let table = Table::fresh().await;
    let owner = Stack::start(&table).await;
    owner.create(TOOL, "ConvertTool", &tool()).await;

    let other_stack = "arn:aws:cloudformation:us-east-1:123456789012:stack/other/0f0e0d0c-0000-4000-8000-000000000000";
    let mut event = registry_e2e::events::cfn(&Request {
        request_type: "Create",
        request_id: "other-1",
        response_url: &owner.urls.url("other-create"),
        resource_type: TOOL,
        logical_id: "Convert",
        properties: &tool(),
        physical_id: None,
        old_properties: None,
    });
    event["StackId"] = json!(other_stack);
    let refused = owner.redeliver(&event, "other-create").await;
    let reason = assert_failed(&refused.put);
    assert!(reason.contains("already exists") && reason.contains(STACK_ID), "{reason}");

    let mut delete = registry_e2e::events::cfn(&Request {
        request_type: "Delete",
        request_id: "other-2",
        response_url: &owner.urls.url("other-delete"),
        resource_type: TOOL,
        logical_id: "Convert",
        properties: &tool(),
        physical_id: Some("convert_units@1.0.0"),
        old_properties: None,
    });
    delete["StackId"] = json!(other_stack);
    assert_success(&owner.redeliver(&delete, "other-delete").await.put);
    // Still there for its owner: a redelivered Create by the owner is unchanged.
    let mine = owner.create(TOOL, "ConvertTool", &tool()).await;
    assert_eq!(mine.put.body["Data"]["Version"], "1");
}

#[tokio::test]
async fn a_hanging_table_gets_a_failed_answer_before_the_deadline() {
    // A "DynamoDB endpoint" that accepts connections and never answers.
    let endpoint = registry_e2e::silent_endpoint().await;
    let table = Table { name: "registry".into(), endpoint };
    let stack = Stack::start(&table).await;
    let name = "responses/slow";
    let event = registry_e2e::events::cfn(&Request {
        request_type: "Create",
        request_id: "slow-1",
        response_url: &stack.urls.url(name),
        resource_type: TOOL,
        logical_id: "ConvertTool",
        properties: &tool(),
        physical_id: None,
        old_properties: None,
    });
    let timeout = Duration::from_secs(5);
    let deadline = SystemTime::now() + timeout;
    let answer = stack.function.invoke(&event, timeout).await;
    assert!(matches!(answer, Answer::Response(_)), "{answer:?}\n{}", stack.function.log());
    let puts = stack.urls.puts(name);
    assert_eq!(puts.len(), 1, "{}", stack.function.log());
    let reason = assert_failed(&puts[0]);
    assert!(reason.contains("timed out"), "{reason}");
    assert!(puts[0].body["PhysicalResourceId"].as_str().unwrap().starts_with("unregistered/"));
    assert!(puts[0].received < deadline, "the answer must arrive before the Lambda deadline");
}

#[tokio::test]
async fn an_event_without_a_response_url_is_an_invocation_error() {
    let table = Table::fresh().await;
    let stack = Stack::start(&table).await;
    let answer =
        stack.function.invoke(&json!({"RequestType": "Create"}), Duration::from_secs(10)).await;
    match answer {
        Answer::Error(e) => assert!(e.to_string().contains("ResponseURL"), "{e}"),
        other => panic!("expected an invocation error, got {other:?}"),
    }
}
