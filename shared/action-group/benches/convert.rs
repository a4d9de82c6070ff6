//! Event -> typed arguments -> response, the per-invocation cost of the crate.
//!
//! `event-text-to-response-bytes` is the whole path `run` serves: [`handle_body`] reads
//! the invocation body once and answers it, then `lambda_runtime` reads the `null` event
//! `run` hands its own handler (through `serde_path_to_error`, as its deserializer does)
//! and serializes the response with `serde_json::to_vec` before posting it.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use bedrock_action_group::{Arguments, ToolError, handle, handle_body, handle_json, parse_event};
use criterion::{Criterion, criterion_group, criterion_main};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct Args {
    value: f64,
    from: String,
    to: String,
    precision: Option<u32>,
    tags: Vec<String>,
}

#[derive(Serialize)]
struct Out {
    value: f64,
    unit: String,
    tags: usize,
}

fn convert(a: Args) -> Result<Out, ToolError> {
    let v = if a.from == "km" { a.value * 0.621_371 } else { a.value };
    let _ = a.precision;
    Ok(Out { value: v, unit: a.to, tags: a.tags.len() })
}

const EVENT: &str = r#"{
  "messageVersion": "1.0",
  "agent": {"name": "units", "id": "AGENT123", "alias": "TSTALIASID", "version": "DRAFT"},
  "inputText": "How many miles is 12.5 km?",
  "sessionId": "123456789012345",
  "actionGroup": "units",
  "function": "convert",
  "parameters": [
    {"name": "value", "type": "number", "value": "12.5"},
    {"name": "from", "type": "string", "value": "km"},
    {"name": "to", "type": "string", "value": "mi"},
    {"name": "precision", "type": "integer", "value": "3"},
    {"name": "tags", "type": "array", "value": "[road, trip]"}
  ],
  "sessionAttributes": {"user": "u-1"},
  "promptSessionAttributes": {}
}"#;

/// What `lambda_runtime` 1.x does with the `null` event `run` hands its handler.
fn runtime_payload(body: &[u8]) -> IgnoredAny {
    serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_slice(body)).unwrap()
}

fn bench(c: &mut Criterion) {
    c.bench_function("event-text-to-response-bytes", |b| {
        b.iter(|| {
            let response = handle_body(black_box(EVENT.as_bytes()), convert);
            runtime_payload(b"null");
            serde_json::to_vec(&response).unwrap()
        })
    });
    let value: serde_json::Value = serde_json::from_str(EVENT).unwrap();
    c.bench_function("value event -> typed args -> response", |b| {
        b.iter(|| handle(black_box(&value), convert))
    });
    c.bench_function("parse_event only", |b| b.iter(|| parse_event(black_box(&value)).unwrap()));
    let event = parse_event(&value).unwrap();
    c.bench_function("arguments + typed extraction only", |b| {
        b.iter(|| Arguments::from_event(black_box(&event)).unwrap().extract::<Args>().unwrap())
    });
    c.bench_function("response build only", |b| {
        b.iter(|| {
            event.respond().json(black_box(&Out { value: 7.7, unit: "mi".into(), tags: 2 })).build()
        })
    });
    c.bench_function("json text -> typed args -> response json", |b| {
        b.iter(|| serde_json::to_vec(&handle_json(black_box(EVENT), convert)).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
