//! The interceptor's warm decision, the store excluded (goal <= 5 us, `scripts/bench.sh`):
//! a REQUEST `tools/call` event's JSON text in (the principal token in its
//! `Authorization` header, three arguments), the output document's text out, on a warm
//! container: the token verified before (its expiry still checked), the tool's rules
//! compiled and cached from an in-process `RuleSource`, the decision line built as the
//! EMF document the Lambda writes, handed to a sink that drops it.
//! `interceptor/decision-only`: the same call as `registry_gateway::Gateway::call`
//! takes it (the documents' cost is the difference).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use criterion::{Criterion, criterion_group, criterion_main};
use gateway_interceptor::{Interceptor, POINT};
use registry_gateway::{Call, Caller, Gateway, Verdict};
use registry_token::{DEFAULT_AUDIENCE, KeyRing, TokenRequest};
use serde_json::json;
use serde_json::value::RawValue;

use support::{ISSUER, Memory, NOW_MS, config, units_tool};

fn event(keys: &KeyRing) -> Box<RawValue> {
    let context = json!({
        "user": {"userId": "u-42", "userType": "internal-user", "roles": ["agent", "support"]},
        "account": {"accountId": "acct-7", "type": "retailer"},
        "request": {"region": "us-east-1"}
    });
    let token = keys
        .issue(&TokenRequest {
            issuer: ISSUER,
            audience: DEFAULT_AUDIENCE,
            user_id: Some("u-42"),
            agent_id: "support-bot",
            session_id: "s-1",
            context_json: &context.to_string(),
            now: NOW_MS / 1000,
            ttl_seconds: 3_600,
        })
        .unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 17, "method": "tools/call", "params": {
        "name": "units___convert", "arguments": {"value": 5, "from": "km", "to": "m"}}});
    let event = json!({
        "interceptorInputVersion": "1.0",
        "mcp": {
            "rawGatewayRequest": {"body": body.to_string()},
            "gatewayRequest": {
                "path": "/mcp", "httpMethod": "POST",
                "headers": {
                    "Accept": "application/json, text/event-stream",
                    "Authorization": format!("Bearer {token}"),
                    "Content-Type": "application/json",
                    "Mcp-Session-Id": "s-1",
                    "User-Agent": "bench/1.0"
                },
                "body": body
            }
        }
    });
    serde_json::value::to_raw_value(&event).unwrap()
}

/// Polls a future that never waits (cached rules: the source is not read) to its end.
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the warm path waited"),
    }
}

fn bench(c: &mut Criterion) {
    let keys = KeyRing::generate(NOW_MS / 1000).unwrap();
    let gateway = Gateway::new(config(&keys), Memory(units_tool()), POINT).with_clock(|| NOW_MS);
    let interceptor = Interceptor::new(gateway, |record| {
        black_box(record.to_emf_line(NOW_MS));
    });
    let event = event(&keys);
    // warm-up: the token verified, the rules read and compiled
    let output = ready(interceptor.handle(&event));
    assert!(output.get().contains("transformedGatewayRequest"), "allowed: {}", output.get());
    c.bench_function("interceptor/request-warm", |b| {
        b.iter(|| ready(interceptor.handle(black_box(&event))))
    });

    // the decision alone, as the core sees the same call: what the documents cost is
    // the difference
    let gateway = Gateway::new(config(&keys), Memory(units_tool()), POINT)
        .with_clock(|| NOW_MS)
        .with_log(|record| {
            black_box(record.to_emf_line(NOW_MS));
        });
    let bearer = event.get().split("Bearer ").nth(1).and_then(|t| t.split('"').next()).unwrap();
    let arguments = json!({"value": 5, "from": "km", "to": "m"});
    let arguments = arguments.as_object().unwrap();
    let call = || Call {
        caller: Caller::Bearer(bearer),
        target: "units",
        tool: "convert",
        arguments,
        session_id: Some("s-1"),
    };
    assert_eq!(ready(gateway.call(call())), Verdict::Allow, "warm-up");
    c.bench_function("interceptor/decision-only", |b| {
        b.iter(|| ready(gateway.call(black_box(call()))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
