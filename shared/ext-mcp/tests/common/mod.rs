//! Shared setup of the ExtMCP tests: the example tool as backend `units` (staff only), an
//! agent allowed two calls per session, on the embedded store; the server on a port the
//! system picks (read back from its listener), over real gRPC on loopback.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value as ProtoValue};
use registry_core::{AgentDefinition, Definition, ToolDefinition};
use registry_ext_mcp::proto::authorization_error::Code;
use registry_ext_mcp::proto::ext_mcp_client::ExtMcpClient;
use registry_ext_mcp::proto::{McpRequest, mcp_request_result};
use registry_gateway::{ClaimsMapping, DecisionPoint, Gateway, GatewayConfig, StoreSource};
use registry_store::{Expected, Store};
use registry_store_sqlite::SqliteStore;
use serde_json::{Value, json};
use tonic::transport::Channel;

/// Callers known by claims (`sub`, `groups`), the agent `budget-bot`.
pub fn config() -> GatewayConfig {
    GatewayConfig {
        keys: None,
        claims: Some(
            ClaimsMapping::parse(r#"{"user.userId":"sub","user.roles":"groups"}"#).unwrap(),
        ),
        agent: Some("budget-bot".into()),
        max_staleness: Duration::from_secs(30),
    }
}

/// The example tool as backend `units` (staff only), an agent allowed two calls per
/// session, on the embedded store in `dir`.
pub async fn example(dir: &std::path::Path) -> Arc<dyn Store> {
    let store = SqliteStore::open(dir.join("registry.db")).unwrap();
    let mut tool: Value =
        serde_json::from_str(include_str!("../../../../cli/example/convert-units.json")).unwrap();
    tool["tags"] = json!({"gateway-target": "units"});
    tool["accessRules"] =
        json!([{"id": "staff-only", "effect": "allow", "condition": "'staff' in user.roles"}]);
    let tool: ToolDefinition = serde_json::from_value(tool).unwrap();
    store.put(Definition::Tool(tool), Expected::Absent).await.unwrap();
    let agent: AgentDefinition = serde_json::from_value(json!({
        "agentId": "budget-bot", "description": "Two calls per session.",
        "basePrompt": "You convert units for people, using the tool you are given.",
        "foundationModel": "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "toolIds": ["convert_units@1.0.0"],
        "limits": {"maxToolCalls": 2}
    }))
    .unwrap();
    store.put(Definition::Agent(agent), Expected::Absent).await.unwrap();
    Arc::new(store)
}

/// The server over `store` until `shutdown`; its address.
pub async fn listen(
    store: Arc<dyn Store>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> SocketAddr {
    let gateway = Gateway::new(config(), StoreSource::new(store), DecisionPoint::ExtMcp);
    let (_, gateways) = tokio::sync::watch::channel(Arc::new(gateway));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(registry_ext_mcp::serve(listener, gateways, shutdown));
    address
}

/// The server over `store`; the client and what stops it.
pub async fn serve(
    store: Arc<dyn Store>,
) -> (ExtMcpClient<Channel>, tokio::sync::oneshot::Sender<()>) {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let address = listen(store, async {
        let _ = stopped.await;
    })
    .await;
    (ExtMcpClient::connect(format!("http://{address}")).await.unwrap(), stop)
}

/// A protobuf string.
pub fn text(s: &str) -> ProtoValue {
    ProtoValue { kind: Some(Kind::StringValue(s.into())) }
}

/// `metadata_context` with the claims of `sub` in `groups`.
pub fn claims(sub: &str, groups: &[&str]) -> Option<Struct> {
    let groups = ListValue { values: groups.iter().map(|g| text(g)).collect() };
    let claims = Struct {
        fields: [
            ("sub".to_owned(), text(sub)),
            ("groups".to_owned(), ProtoValue { kind: Some(Kind::ListValue(groups)) }),
        ]
        .into(),
    };
    Some(Struct {
        fields: [("claims".to_owned(), ProtoValue { kind: Some(Kind::StructValue(claims)) })]
            .into(),
    })
}

/// The refusal's code of `request`, `None` when it passes.
pub async fn code(client: &mut ExtMcpClient<Channel>, request: McpRequest) -> Option<Code> {
    match client.check_request(request).await.unwrap().into_inner().result.unwrap() {
        mcp_request_result::Result::Pass(_) => None,
        mcp_request_result::Result::Error(e) => Some(e.code()),
        other => panic!("{other:?}"),
    }
}
