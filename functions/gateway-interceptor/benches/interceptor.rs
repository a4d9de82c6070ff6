//! The interceptor's warm decision, the store excluded (goal <= 5 us, `scripts/bench.sh`):
//! a REQUEST `tools/call` event's JSON text in (the principal token in its
//! `Authorization` header, three arguments), the output document's text out, on a warm
//! container: the token verified before (its expiry still checked), the tool's rules
//! compiled and cached from an in-process `RuleSource`, the decision line built as the
//! EMF document the Lambda writes, handed to a sink that drops it.
//! `interceptor/decision-only`: the same call as `registry_gateway::Gateway::call`
//! takes it (the documents' cost is the difference).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use criterion::{Criterion, criterion_group, criterion_main};
use gateway_interceptor::{Interceptor, POINT};
use registry_core::{LifecycleStatus, ToolDefinition};
use registry_gateway::{Call, Caller, Gateway, GatewayConfig, Verdict};
use registry_guard::RuleSource;
use registry_store::StoreError;
use registry_token::{DEFAULT_AUDIENCE, KeyRing, TokenRequest};
use serde_json::json;
use serde_json::value::RawValue;

const ISSUER: &str = "http://registry.bench";
const NOW_MS: i64 = 1_795_608_000_000;

/// The rules, already in memory: an in-process stand-in for the registry's table.
struct Memory(ToolDefinition);

impl RuleSource for Memory {
    async fn tool(&self, id: &str) -> Result<Option<ToolDefinition>, StoreError> {
        Ok((id == self.0.tool_id).then(|| self.0.clone()))
    }

    async fn agent(
        &self,
        id: &str,
    ) -> Result<Option<registry_core::AgentDefinition>, registry_store::StoreError> {
        let agent = json!({
            "agentId": "support-bot",
            "basePrompt": "You convert units.",
            "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
            "toolIds": [self.0.tool_id]
        });
        Ok((id == "support-bot").then(|| serde_json::from_value(agent).unwrap()))
    }

    async fn tools_tagged(
        &self,
        key: &str,
        value: &str,
    ) -> Result<Vec<(String, LifecycleStatus)>, StoreError> {
        let tagged = self.0.tags.as_ref().and_then(|t| t.get(key)).is_some_and(|v| v == value);
        let status = self.0.lifecycle.as_ref().map(|l| l.status).unwrap_or_default();
        Ok(if tagged { vec![(self.0.tool_id.clone(), status)] } else { Vec::new() })
    }
}

/// The example tool, gateway target `units`.
fn tool() -> ToolDefinition {
    let mut tool: serde_json::Value =
        serde_json::from_str(include_str!("../../../cli/example/convert-units.json")).unwrap();
    tool["tags"][registry_gateway::TARGET_TAG] = json!("units");
    serde_json::from_value(tool).unwrap()
}

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
    let jwks = serde_json::to_string(&keys.jwks()).unwrap();
    let config = GatewayConfig::from_vars(|name| match name {
        "REGISTRY_TOKEN_ISSUER" => Some(ISSUER.to_owned()),
        "REGISTRY_JWKS" => Some(jwks.clone()),
        _ => None,
    })
    .unwrap();
    let gateway = Gateway::new(config, Memory(tool()), POINT).with_clock(|| NOW_MS);
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
    let config = GatewayConfig::from_vars(|name| match name {
        "REGISTRY_TOKEN_ISSUER" => Some(ISSUER.to_owned()),
        "REGISTRY_JWKS" => Some(jwks.clone()),
        _ => None,
    })
    .unwrap();
    let gateway =
        Gateway::new(config, Memory(tool()), POINT).with_clock(|| NOW_MS).with_log(|record| {
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
