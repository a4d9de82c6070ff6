//! The guard's own cost per call, on the example tool's three call
//! rules (one enforced deny, one log-only deny, the allow) and a function-details event
//! whose session carries a principal token (RS256 JWT):
//!
//! - `guard/read-evaluate`: a token verified before (the first verification of a token,
//!   once per session and container, is `token/verify-first` in
//!   shared/token/benches/token.rs): its claims' context read into a prepared context
//!   with `request.agentId`/`toolId`, the arguments decoded and checked against the
//!   function's schema (prepared once per container, with the rules), and the three
//!   call rules evaluated.
//! - `guard/check-warm`: `Guard::check` on a warm container: the token seen before (its
//!   expiry and session still checked), rules cached, the decision line built (EMF) and
//!   handed to a sink that drops it.
//!
//! - `guard/one-session-rule`: `read-evaluate` with one more call rule, over the
//!   session (`session.callsOf[...]`), evaluated on a session's state and the new state
//!   worked out as an admitted call's; the store round trip excluded (SPEC section 19).
//!
//! `scripts/bench.sh` reports them against the goal (<= 3 us).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use bedrock_action_group::{ActionGroupEvent, Arguments, FunctionEvent, parse_event};
use criterion::{Criterion, criterion_group, criterion_main};
use registry_access::{PreparedContext, RuleSet, ToolCall};
use registry_core::ToolDefinition;
use registry_core::session::SessionState;
use registry_guard::{Guard, GuardConfig, RuleSource, Verdict};
use registry_token::{
    DEFAULT_AUDIENCE, KeyRing, KeySource, Principal, SESSION_ATTRIBUTE, TokenRequest, Verifier,
};
use registry_types::ArgumentSchema;
use serde_json::json;

const ISSUER: &str = "http://registry.bench";
const NOW_MS: i64 = 1_795_608_000_000;

/// The rules, already in memory: an in-process stand-in for the registry's table.
struct Memory(ToolDefinition);

impl RuleSource for Memory {
    async fn tool(&self, _: &str) -> Result<Option<ToolDefinition>, registry_store::StoreError> {
        Ok(Some(self.0.clone()))
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
}

fn tool() -> ToolDefinition {
    serde_json::from_str(include_str!("../../../cli/example/convert-units.json")).unwrap()
}

fn event(keys: &KeyRing) -> ActionGroupEvent {
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
    parse_event(&json!({
        "messageVersion": "1.0",
        "agent": {"name": "units", "id": "AGENT1", "alias": "TSTALIASID", "version": "DRAFT"},
        "inputText": "convert", "sessionId": "s-1", "actionGroup": "convert_units",
        "function": "convert",
        "parameters": [
            {"name": "value", "type": "number", "value": "5"},
            {"name": "from", "type": "string", "value": "km"},
            {"name": "to", "type": "string", "value": "m"}
        ],
        "sessionAttributes": {SESSION_ATTRIBUTE: token}, "promptSessionAttributes": {}
    }))
    .unwrap()
}

/// The guard's steps before the rules for a verified token: its context read into a
/// prepared context with `request.agentId` and `toolId`, the arguments decoded and
/// checked; then `decide` on them.
fn with_call<R>(
    principal: &Principal,
    call: &FunctionEvent,
    schema: &ArgumentSchema,
    decide: impl FnOnce(&PreparedContext<'_>, &ToolCall<'_>) -> R,
) -> R {
    let mut prepared = PreparedContext::from_json(principal.context_json().as_bytes()).unwrap();
    prepared.set_agent_id(Some(principal.agent_id()));
    prepared.set_tool_id(Some("convert_units@1.0.0"));
    let arguments = Arguments::from_parameters_checked(&call.parameters, schema).unwrap();
    let tool_call =
        ToolCall { function: &call.function, http_method: None, arguments: arguments.as_map() };
    decide(&prepared, &tool_call)
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
    let verifier = Verifier::new(&keys.jwks(), ISSUER, DEFAULT_AUDIENCE).unwrap();
    let event = event(&keys);
    let tool = tool();
    let rules =
        RuleSet::compile_call(tool.call_rules.as_deref().unwrap(), Arc::new(tool.call_schema()))
            .unwrap();
    let function = &tool.function_schema.as_ref().unwrap()[0];
    // prepared once per container, with the rules (`Loaded`)
    let schema = ArgumentSchema::new(function, tool.types.as_ref()).unwrap();
    let ActionGroupEvent::Function(call) = &event else { unreachable!() };
    let token = &call.session_attributes[SESSION_ATTRIBUTE];
    let principal = verifier.verify(token, NOW_MS / 1000).unwrap();

    c.bench_function("guard/read-evaluate", |b| {
        b.iter(|| {
            let decision = with_call(black_box(&principal), call, &schema, |prepared, call| {
                rules.evaluate_call(prepared, call)
            });
            black_box(decision)
        })
    });

    let mut with_session = tool.call_rules.clone().unwrap();
    with_session.insert(
        0,
        serde_json::from_value(json!({"id": "few-conversions", "effect": "deny",
            "condition": "session.callsOf['convert'] >= 50"}))
        .unwrap(),
    );
    let session_rules = RuleSet::compile_call(&with_session, Arc::new(tool.call_schema())).unwrap();
    let mut state = SessionState::default();
    for t in 0..5 {
        state = state.admit("convert", &serde_json::Map::new(), &[], NOW_MS - 60_000 + t).unwrap();
    }
    c.bench_function("guard/one-session-rule", |b| {
        b.iter(|| {
            let (decision, next) =
                with_call(black_box(&principal), call, &schema, |prepared, call| {
                    let decision = session_rules.evaluate_call_in(
                        prepared,
                        call,
                        black_box(&state).view(NOW_MS),
                    );
                    let totals = session_rules.session_totals();
                    (decision, state.admit(call.function, call.arguments, totals, NOW_MS))
                });
            black_box((decision, next))
        })
    });

    let config = GuardConfig::new("convert_units@1.0.0", KeySource::Document(Arc::new(verifier)));
    let guard = Guard::new(config, Memory(tool.clone())).with_clock(|| NOW_MS).with_log(|line| {
        black_box(line);
    });
    assert_eq!(ready(guard.check(&event)), Verdict::Allow, "warm-up: rules read, token verified");
    c.bench_function("guard/check-warm", |b| b.iter(|| ready(guard.check(black_box(&event)))));
}

criterion_group!(benches, bench);
criterion_main!(benches);
