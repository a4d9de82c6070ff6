//! The gateway point on the registry's DynamoDB table (the local DynamoDB-API server),
//! several containers at once: one session's budget admits exactly its calls, however
//! many arrive together and on however many containers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use registry_core::{AgentDefinition, Definition, ToolDefinition};
use registry_gateway::{
    Call, Caller, DecisionPoint, DenialKind, Gateway, GatewayConfig, StoreSource, Verdict,
};
use registry_store::{Expected, Store};
use registry_store_dynamodb::local::{another_instance, fresh_store};
use registry_token::{KeyRing, KeySource, TokenRequest, Verifier};
use serde_json::{Value, json};

const ISSUER: &str = "https://registry.example.com";
const AUDIENCE: &str = "agent-registry";
const NOW_S: i64 = 1_900_000_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn concurrent_calls_on_several_containers_admit_exactly_the_budget() {
    let store = fresh_store("gateway-race").await.unwrap();
    let mut tool: Value =
        serde_json::from_str(include_str!("../../../cli/example/convert-units.json")).unwrap();
    tool["tags"] = json!({"gateway-target": "units"});
    let tool: ToolDefinition = serde_json::from_value(tool).unwrap();
    store.put(Definition::Tool(tool), Expected::Absent).await.unwrap();
    let agent: AgentDefinition = serde_json::from_value(json!({
        "agentId": "budget-bot", "description": "Three calls per session.",
        "basePrompt": "You convert units for people, using the tool you are given.",
        "foundationModel": "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "toolIds": ["convert_units@1.0.0"],
        "limits": {"maxToolCalls": 3}
    }))
    .unwrap();
    store.put(Definition::Agent(agent), Expected::Absent).await.unwrap();
    let ring = KeyRing::generate(NOW_S).unwrap();
    let jwks = serde_json::to_string(&ring.jwks()).unwrap();
    let context = json!({"user": {"userId": "u-7", "roles": ["staff"]}}).to_string();
    let token = ring
        .issue(&TokenRequest {
            issuer: ISSUER,
            audience: AUDIENCE,
            user_id: Some("u-7"),
            agent_id: "budget-bot",
            session_id: "race",
            context_json: &context,
            now: NOW_S,
            ttl_seconds: 3_600,
        })
        .unwrap();
    // four containers, each with its own client and caches
    let mut containers = Vec::new();
    for _ in 0..4 {
        let instance: Arc<dyn Store> = Arc::new(another_instance(&store).await.unwrap());
        let verifier = Verifier::from_jwks_json(&jwks, ISSUER, AUDIENCE).unwrap();
        let config = GatewayConfig::new(KeySource::Document(Arc::new(verifier)));
        let gateway =
            Gateway::new(config, StoreSource::new(instance), DecisionPoint::GatewayInterceptor)
                .with_clock(|| NOW_S * 1000);
        containers.push(Arc::new(gateway));
    }
    let token = Arc::new(token);
    let calls = (0..64).map(|i| {
        let gateway = Arc::clone(&containers[i % containers.len()]);
        let token = Arc::clone(&token);
        tokio::spawn(async move {
            let arguments =
                json!({"value": 3.0, "from": "km", "to": "m"}).as_object().cloned().unwrap();
            let call = Call {
                caller: Caller::Bearer(&token),
                target: "units",
                tool: "convert",
                arguments: &arguments,
                session_id: None,
            };
            gateway.call(call).await
        })
    });
    let mut verdicts = Vec::new();
    for call in calls {
        verdicts.push(call.await.unwrap());
    }
    let allowed = verdicts.iter().filter(|v| **v == Verdict::Allow).count();
    let exhausted = verdicts
        .iter()
        .filter(|v| matches!(v, Verdict::Deny(d) if d.kind == DenialKind::Exhausted))
        .count();
    assert_eq!(allowed, 3, "{verdicts:?}");
    // the others: exhausted, or refused because the counts were contended (never allowed)
    assert!(exhausted > 0, "{verdicts:?}");
}

/// Rules from one store, session counts kept in another.
struct Split {
    rules: StoreSource,
    counts: registry_store_dynamodb::DynamoStore,
}

impl registry_gateway::RuleSource for Split {
    async fn tool(&self, id: &str) -> Result<Option<ToolDefinition>, registry_store::StoreError> {
        self.rules.tool(id).await
    }

    async fn agent(&self, id: &str) -> Result<Option<AgentDefinition>, registry_store::StoreError> {
        self.rules.agent(id).await
    }

    fn counters(&self) -> Option<&dyn Store> {
        Some(&self.counts)
    }

    async fn tools_tagged(
        &self,
        key: &str,
        value: &str,
    ) -> Result<Vec<(String, registry_core::LifecycleStatus)>, registry_store::StoreError> {
        self.rules.tools_tagged(key, value).await
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn counts_a_table_never_answers_deny_in_bounded_time() {
    let store = fresh_store("gateway-silent-counts").await.unwrap();
    let mut tool: Value =
        serde_json::from_str(include_str!("../../../cli/example/convert-units.json")).unwrap();
    tool["tags"] = json!({"gateway-target": "units"});
    let tool: ToolDefinition = serde_json::from_value(tool).unwrap();
    store.put(Definition::Tool(tool), Expected::Absent).await.unwrap();
    let agent: AgentDefinition = serde_json::from_value(json!({
        "agentId": "budget-bot", "description": "Three calls per session.",
        "basePrompt": "You convert units for people, using the tool you are given.",
        "foundationModel": "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "toolIds": ["convert_units@1.0.0"],
        "limits": {"maxToolCalls": 3}
    }))
    .unwrap();
    store.put(Definition::Agent(agent), Expected::Absent).await.unwrap();
    // an endpoint that accepts and never answers, reached by the SDK's own retries
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", silent.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let counts = registry_store_dynamodb::local::through(&store, &endpoint).await;
    let rules: Arc<dyn Store> = Arc::new(store);
    let ring = KeyRing::generate(NOW_S).unwrap();
    let jwks = serde_json::to_string(&ring.jwks()).unwrap();
    let verifier = Verifier::from_jwks_json(&jwks, ISSUER, AUDIENCE).unwrap();
    let config = GatewayConfig::new(KeySource::Document(Arc::new(verifier)));
    let source = Split { rules: StoreSource::new(rules), counts };
    let gateway = Gateway::new(config, source, DecisionPoint::ExtMcp).with_clock(|| NOW_S * 1000);
    let context = json!({"user": {"userId": "u-7", "roles": ["staff"]}}).to_string();
    let token = ring
        .issue(&TokenRequest {
            issuer: ISSUER,
            audience: AUDIENCE,
            user_id: Some("u-7"),
            agent_id: "budget-bot",
            session_id: "silent",
            context_json: &context,
            now: NOW_S,
            ttl_seconds: 3_600,
        })
        .unwrap();
    let arguments = json!({"value": 3.0, "from": "km", "to": "m"}).as_object().cloned().unwrap();
    let call = Call {
        caller: Caller::Bearer(&token),
        target: "units",
        tool: "convert",
        arguments: &arguments,
        session_id: None,
    };
    let started = std::time::Instant::now();
    let verdict = tokio::time::timeout(std::time::Duration::from_secs(30), gateway.call(call))
        .await
        .expect("no answer in 30 s");
    assert!(matches!(verdict, Verdict::Deny(d) if d.kind == DenialKind::Denied));
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
}
