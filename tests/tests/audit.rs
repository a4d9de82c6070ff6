//! Reviewed changes and the audit stream across the binaries, on one DynamoDB table: the
//! admin API with review required (API Gateway events, IAM callers from the example
//! role map), then the event forwarder putting the table's events on an EventBridge bus
//! of the local AWS-API server, delivery read back through a rule's SQS queue.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{ADMIN, READER, ROLE_MAP, api};
use registry_e2e::{Lambda, Table, aws_json, sqs};
use registry_store::contract::sample::tool_json;
use serde_json::{Value, json};

/// A session of the example map's deployer role: an editor.
const EDITOR: &str = "arn:aws:sts::123456789012:assumed-role/RegistryDeployer/ci-7";
/// A session of the example map's reviewer role: an approver.
const APPROVER: &str = "arn:aws:sts::123456789012:assumed-role/RegistryReviewer/ann";

fn tool() -> Value {
    let mut tool = tool_json("weather");
    tool["accessRules"] = json!([{"effect": "deny", "condition": "customData.tier != 'premium'"}, {"effect": "allow"}]);
    tool
}

/// The stream record DynamoDB writes for the event item of `event`.
fn stream_record(event: &Value) -> Value {
    let seq = event["seq"].as_u64().unwrap();
    let image = json!({
        "pk": {"S": "EVENTS"}, "sk": {"S": format!("E#{seq:020}")}, "seq": {"N": seq.to_string()},
        "kind": {"S": event["kind"]}, "id": {"S": event["id"]}, "actor": {"S": event["actor"]},
        "action": {"S": event["action"]}, "doc": {"S": event.to_string()},
    });
    json!({
        "eventID": format!("e2e-{seq}"), "eventName": "INSERT", "eventVersion": "1.1",
        "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/registry/stream/2026-11-25T00:00:00.000",
        "dynamodb": {"ApproximateCreationDateTime": 1764028800.0,
            "Keys": {"pk": image["pk"].clone(), "sk": image["sk"].clone()}, "NewImage": image,
            "SequenceNumber": format!("{}", 1000 + seq), "SizeBytes": 300, "StreamViewType": "NEW_IMAGE"}
    })
}

#[tokio::test]
async fn a_reviewed_change_on_dynamodb_reaches_eventbridge_with_its_events() {
    let table = Table::fresh().await;
    let env = [
        ("REGISTRY_ROLE_MAP", ROLE_MAP),
        ("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true"),
        ("REGISTRY_REQUIRE_REVIEW", "true"),
    ];
    let admin_api = Lambda::start("admin-api", &table, &env).await;

    let (status, body) = api(&admin_api, "POST", "/tools", Some(&tool()), ADMIN).await;
    assert_eq!(status, 201, "{body}");
    let widen = json!({"version": 1, "accessRules": [{"effect": "allow"}]});
    let (status, proposal) = api(&admin_api, "PATCH", "/tools/weather", Some(&widen), EDITOR).await;
    assert_eq!(status, 202, "{proposal}");
    let id = proposal["id"].as_str().unwrap().to_owned();
    let approve = format!("/proposals/{id}/approve");
    let (status, body) = api(&admin_api, "POST", &approve, None, EDITOR).await;
    assert_eq!(status, 403, "an editor never approves: {body}");
    let (status, body) = api(&admin_api, "POST", &approve, None, APPROVER).await;
    assert_eq!((status, &body["state"]), (200, &json!("applied")), "{body}");
    let (_, served) = api(&admin_api, "GET", "/tools/weather", None, READER).await;
    assert_eq!(
        (served["version"].clone(), served["accessRules"].clone()),
        (json!(2), json!([{"id": "rule-2", "effect": "allow"}]))
    );

    let (status, page) = api(&admin_api, "GET", "/events", None, READER).await;
    assert_eq!(status, 200, "{page}");
    let events = page["items"].as_array().unwrap().clone();
    let seen: Vec<(&str, &str)> = events
        .iter()
        .map(|e| (e["action"].as_str().unwrap(), e["actor"].as_str().unwrap()))
        .collect();
    assert_eq!(
        seen,
        [
            ("create", ADMIN),
            ("proposal.opened", EDITOR),
            ("proposal.approved", APPROVER),
            ("proposal.applied", APPROVER)
        ]
    );

    // The forwarder on the stream records of those event items.
    let endpoint = table.endpoint.clone();
    let bus = format!("{}-bus", table.name);
    aws_json(&endpoint, "AWSEvents.CreateEventBus", "events", json!({"Name": bus})).await;
    let queue = sqs::create_queue(&endpoint, &bus).await;
    let pattern = json!({"source": ["agent-registry"]}).to_string();
    aws_json(
        &endpoint,
        "AWSEvents.PutRule",
        "events",
        json!({"Name": "all", "EventBusName": bus, "EventPattern": pattern}),
    )
    .await;
    let target = json!({"Id": "q", "Arn": format!("arn:aws:sqs:us-east-1:123456789012:{bus}")});
    aws_json(
        &endpoint,
        "AWSEvents.PutTargets",
        "events",
        json!({"Rule": "all", "EventBusName": bus, "Targets": [target]}),
    )
    .await;

    let batch = json!({"Records": events.iter().map(stream_record).collect::<Vec<_>>()});
    let forwarder_env = [
        ("REGISTRY_EVENT_BUS", bus.as_str()),
        ("REGISTRY_EVENTBRIDGE_ENDPOINT_URL", endpoint.as_str()),
    ];
    let forwarder = Lambda::start("event-forwarder", &table, &forwarder_env).await;
    let answer = forwarder.call(&batch).await;
    assert_eq!(answer, json!({"batchItemFailures": []}), "log:\n{}", forwarder.log());

    let delivered = sqs::receive(&endpoint, &queue).await;
    let types: Vec<&str> = delivered.iter().map(|e| e["detail-type"].as_str().unwrap()).collect();
    assert_eq!(types, ["create", "proposal.opened", "proposal.approved", "proposal.applied"]);
    assert_eq!(delivered[3]["detail"], events[3], "the detail is the event as GET /events has it");

    // A bus that does not exist: the first record is reported, for Lambda to retry from.
    let missing = [
        ("REGISTRY_EVENT_BUS", "no-such-bus"),
        ("REGISTRY_EVENTBRIDGE_ENDPOINT_URL", endpoint.as_str()),
    ];
    let failing = Lambda::start("event-forwarder", &table, &missing).await;
    let answer = failing.call(&batch).await;
    assert_eq!(answer, json!({"batchItemFailures": [{"itemIdentifier": "1001"}]}));
}
