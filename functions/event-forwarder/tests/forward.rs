//! The forwarder on synthetic DynamoDB stream batches: against the local AWS-API server
//! (moto) for EventBridge, delivery checked through a rule's SQS target, every call's
//! entries checked against AWS's EventBridge service model; and against a publisher
//! that refuses chosen entries, for the failure reporting.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Mutex;

use aws_conformance::Model;
use aws_lambda_events::event::dynamodb::Event as StreamBatch;
use aws_sdk_eventbridge::config::{Credentials, Region};
use event_forwarder::{BusEntry, EventBridge, Publisher, PutFailed, Sent, forward};
use registry_core::Kind;
use registry_e2e::sqs;
use registry_store::{Action, EventDraft};
use serde_json::{Value, json};

const SOURCE: &str = "agent-registry";

/// The stream record of event `seq` about `kind/id`, as Lambda delivers it.
fn event_record(seq: u64, kind: Kind, id: &str, action: Action) -> Value {
    let event = EventDraft {
        actor: "eve-editor".into(),
        action,
        kind,
        id: id.into(),
        proposal: None,
        version_before: seq.checked_sub(1),
        version_after: Some(seq),
        changed: vec!["/accessRules".into()],
    }
    .into_event(seq, chrono::Utc::now());
    record(
        seq,
        "INSERT",
        json!({
            "pk": {"S": "EVENTS"}, "sk": {"S": format!("E#{seq:020}")}, "seq": {"N": seq.to_string()},
            "kind": {"S": kind.as_str()}, "id": {"S": id}, "actor": {"S": "eve-editor"},
            "action": {"S": action.as_str()}, "doc": {"S": serde_json::to_string(&event).unwrap()},
        }),
    )
}

/// A stream record with `new_image`, sequence number `100 + n`.
fn record(n: u64, name: &str, new_image: Value) -> Value {
    json!({
        "eventID": format!("id-{n}"),
        "eventName": name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/registry/stream/2026-11-25T00:00:00.000",
        "dynamodb": {
            "ApproximateCreationDateTime": 1764028800.0,
            "Keys": {"pk": new_image["pk"].clone(), "sk": new_image["sk"].clone()},
            "NewImage": new_image,
            "SequenceNumber": format!("{}", 100 + n),
            "SizeBytes": 512,
            "StreamViewType": "NEW_IMAGE"
        }
    })
}

/// A definition head's write: not an event item, never forwarded.
fn head_record(n: u64) -> Value {
    record(n, "MODIFY", json!({"pk": {"S": "TOOL#t"}, "sk": {"S": "HEAD"}, "doc": {"S": "{}"}}))
}

fn batch(records: Vec<Value>) -> StreamBatch {
    serde_json::from_value(json!({ "Records": records })).unwrap()
}

fn failures(response: &aws_lambda_events::event::streams::DynamoDbEventResponse) -> Vec<String> {
    response.batch_item_failures.iter().filter_map(|f| f.item_identifier.clone()).collect()
}

/// Checks every call against the EventBridge model, then passes it on (or refuses the
/// entries whose detail type is in `refuse`).
struct Checked<P> {
    inner: Option<P>,
    refuse: Vec<String>,
    calls: Mutex<Vec<Vec<BusEntry>>>,
}

impl<P: Publisher> Publisher for Checked<P> {
    async fn put(&self, entries: &[BusEntry]) -> Result<Sent, PutFailed> {
        Model::eventbridge().assert("PutEventsRequest", &json!({ "Entries": entries }));
        self.calls.lock().unwrap().push(entries.to_vec());
        match &self.inner {
            Some(inner) => inner.put(entries).await,
            None => Ok(entries
                .iter()
                .map(|e| {
                    self.refuse.contains(&e.detail_type).then(|| "InternalFailure: no".to_owned())
                })
                .collect()),
        }
    }
}

fn checked<P>(inner: Option<P>, refuse: &[&str]) -> Checked<P> {
    Checked {
        inner,
        refuse: refuse.iter().map(|s| (*s).to_owned()).collect(),
        calls: Mutex::default(),
    }
}

/// A bus with a rule sending everything from the registry to a fresh queue; its URL.
async fn bus_to_queue(endpoint: &str, publisher: &EventBridge, name: &str) -> String {
    let queue = sqs::create_queue(endpoint, name).await;
    let client = publisher.client();
    client.create_event_bus().name(name).send().await.unwrap();
    let pattern = json!({"source": [SOURCE]}).to_string();
    client.put_rule().name("all").event_bus_name(name).event_pattern(pattern).send().await.unwrap();
    let target = aws_sdk_eventbridge::types::Target::builder()
        .id("queue")
        .arn(format!("arn:aws:sqs:us-east-1:123456789012:{name}"))
        .build()
        .unwrap();
    client.put_targets().rule("all").event_bus_name(name).targets(target).send().await.unwrap();
    queue
}

/// Every message on `queue` (as EventBridge events), in arrival order.
async fn drain(endpoint: &str, queue: &str) -> Vec<Value> {
    let mut out = Vec::new();
    loop {
        let bodies = sqs::receive(endpoint, queue).await;
        if bodies.is_empty() {
            return out;
        }
        out.extend(bodies);
    }
}

async fn local() -> (String, EventBridge) {
    let endpoint = registry_sdk_config::local::endpoint().unwrap().to_owned();
    let base = registry_sdk_config::sdk_config(Some(endpoint.clone())).await;
    let config = aws_sdk_eventbridge::config::Builder::from(&base)
        .credentials_provider(Credentials::new("test", "test", None, None, "tests"))
        .region(Region::new("us-east-1"))
        .build();
    (endpoint, EventBridge::from_client(aws_sdk_eventbridge::Client::from_conf(config)))
}

fn unique(prefix: &str) -> String {
    format!("{prefix}-{}", chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default())
}

#[tokio::test]
async fn a_batch_reaches_the_bus_in_order_per_definition() {
    let (endpoint, bridge) = local().await;
    let bus = unique("registry-events");
    let queue = bus_to_queue(&endpoint, &bridge, &bus).await;
    let actions = [
        Action::Create,
        Action::Patch,
        Action::ProposalOpened,
        Action::ProposalApplied,
        Action::Lifecycle,
    ];
    let mut records = vec![head_record(0)];
    for seq in 1..=25u64 {
        let id = ["a", "b", "c"][(seq % 3) as usize];
        records.push(event_record(seq, Kind::Tool, id, actions[(seq % 5) as usize]));
    }
    let publisher = checked(Some(bridge), &[]);
    let response = forward(&publisher, &batch(records), &bus, SOURCE).await;
    assert_eq!(failures(&response), Vec::<String>::new());

    let calls = publisher.calls.lock().unwrap().clone();
    assert!(calls.iter().all(|c| c.len() <= 10), "at most 10 entries a call");
    for call in &calls {
        let mut subjects: Vec<&str> = call.iter().map(|e| e.subject.as_str()).collect();
        subjects.sort_unstable();
        subjects.dedup();
        assert_eq!(subjects.len(), call.len(), "one entry per definition a call");
    }
    let delivered = drain(&endpoint, &queue).await;
    assert_eq!(delivered.len(), 25, "every event once");
    for event in &delivered {
        assert_eq!(event["source"], SOURCE);
        assert_eq!(event["detail-type"], event["detail"]["action"]);
    }
    for id in ["a", "b", "c"] {
        let seqs: Vec<u64> = delivered
            .iter()
            .filter(|e| e["detail"]["id"] == id)
            .map(|e| e["detail"]["seq"].as_u64().unwrap())
            .collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{id}: {seqs:?}");
    }
}

#[tokio::test]
async fn only_the_first_failed_record_is_reported_and_nothing_after_it_is_sent() {
    let (endpoint, bridge) = local().await;
    let bus = unique("registry-events");
    let queue = bus_to_queue(&endpoint, &bridge, &bus).await;
    let broken = record(
        3,
        "INSERT",
        json!({"pk": {"S": "EVENTS"}, "sk": {"S": "E#3"}, "doc": {"S": "{not json"}}),
    );
    let records = vec![
        event_record(1, Kind::Tool, "a", Action::Create),
        event_record(2, Kind::Agent, "b", Action::Create),
        broken,
        event_record(4, Kind::Tool, "a", Action::Patch),
    ];
    let publisher = checked(Some(bridge), &[]);
    let response = forward(&publisher, &batch(records), &bus, SOURCE).await;
    assert_eq!(failures(&response), ["103"], "the unusable record, reported for retry");
    let delivered = drain(&endpoint, &queue).await;
    let seqs: Vec<u64> = delivered.iter().map(|e| e["detail"]["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, [1, 2], "what came before was sent, nothing after");
}

#[tokio::test]
async fn a_failed_call_reports_its_first_record() {
    let (_, bridge) = local().await;
    let records = vec![
        event_record(1, Kind::Tool, "a", Action::Create),
        event_record(2, Kind::Tool, "b", Action::Create),
    ];
    let response = forward(&bridge, &batch(records), "no-such-bus", SOURCE).await;
    assert_eq!(failures(&response), ["101"]);
}

#[tokio::test]
async fn a_refused_entry_stops_the_batch_at_it() {
    let records = vec![
        event_record(1, Kind::Tool, "a", Action::Create),
        event_record(2, Kind::Tool, "b", Action::Delete),
        event_record(3, Kind::Tool, "c", Action::Create),
        event_record(4, Kind::Tool, "a", Action::Patch),
        head_record(5),
    ];
    let publisher = checked::<EventBridge>(None, &["delete"]);
    let response = forward(&publisher, &batch(records), "registry-events", SOURCE).await;
    assert_eq!(failures(&response), ["102"], "only the refused record");
    let calls = publisher.calls.lock().unwrap();
    assert_eq!(calls.len(), 1, "nothing sent after the call with the refusal: {calls:?}");
    assert_eq!(calls[0].len(), 3);
}

#[tokio::test]
async fn calls_split_at_ten_entries_and_at_a_repeated_definition() {
    let mut records = Vec::new();
    for seq in 1..=12u64 {
        records.push(event_record(seq, Kind::Tool, &format!("t{seq}"), Action::Create));
    }
    for seq in 13..=15u64 {
        records.push(event_record(seq, Kind::Agent, "same", Action::Patch));
    }
    let publisher = checked::<EventBridge>(None, &[]);
    let response = forward(&publisher, &batch(records), "registry-events", SOURCE).await;
    assert!(failures(&response).is_empty());
    let sizes: Vec<usize> = publisher.calls.lock().unwrap().iter().map(Vec::len).collect();
    assert_eq!(sizes, [10, 3, 1, 1]);
}
