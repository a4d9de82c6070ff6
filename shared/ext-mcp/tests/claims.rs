//! Callers known by claims, over real gRPC on loopback: the server started in process on
//! a TCP port over the gateway on the embedded store, `metadata_context.claims` mapped by
//! the claims mapping, their session the forwarded `mcp-session-id` header.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value as ProtoValue};
use registry_core::{AgentDefinition, Definition, ToolDefinition};
use registry_ext_mcp::proto::authorization_error::Code;
use registry_ext_mcp::proto::ext_mcp_client::ExtMcpClient;
use registry_ext_mcp::proto::{
    McpHeader, McpRequest, McpResponse, mcp_request_result, mcp_response_result,
};
use registry_gateway::{ClaimsMapping, DecisionPoint, Gateway, GatewayConfig, StoreSource};
use registry_store::{Expected, Store};
use registry_store_sqlite::SqliteStore;
use serde_json::{Value, json};
use tonic::transport::Channel;

/// The example tool as backend `units` (staff only), an agent allowed two calls per
/// session, and the server on a free port; the client and what stops it.
async fn start(dir: &std::path::Path) -> (ExtMcpClient<Channel>, tokio::sync::oneshot::Sender<()>) {
    let store = SqliteStore::open(dir.join("registry.db")).unwrap();
    let mut tool: Value =
        serde_json::from_str(include_str!("../../../cli/example/convert-units.json")).unwrap();
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
    let config = GatewayConfig {
        keys: None,
        claims: Some(
            ClaimsMapping::parse(r#"{"user.userId":"sub","user.roles":"groups"}"#).unwrap(),
        ),
        agent: Some("budget-bot".into()),
        max_staleness: std::time::Duration::from_secs(30),
    };
    let gateway = Gateway::new(config, StoreSource::new(Arc::new(store)), DecisionPoint::ExtMcp);
    let (_, gateways) = tokio::sync::watch::channel(Arc::new(gateway));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(registry_ext_mcp::serve(listener, gateways, async {
        let _ = stopped.await;
    }));
    (ExtMcpClient::connect(format!("http://{address}")).await.unwrap(), stop)
}

fn text(s: &str) -> ProtoValue {
    ProtoValue { kind: Some(Kind::StringValue(s.into())) }
}

/// `metadata_context` with the claims of `sub` in `groups`.
fn claims(sub: &str, groups: &[&str]) -> Option<Struct> {
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

fn convert(metadata: Option<Struct>, session: &str, value: f64) -> McpRequest {
    let params = json!({"name": "convert", "arguments": {"value": value, "from": "km", "to": "m"}});
    McpRequest {
        service_names: vec!["units".into()],
        method: "tools/call".into(),
        metadata_context: metadata,
        mcp_request: Some(params.to_string().into_bytes()),
        headers: vec![McpHeader { key: "Mcp-Session-Id".into(), value: session.into() }],
    }
}

async fn code(client: &mut ExtMcpClient<Channel>, request: McpRequest) -> Option<Code> {
    match client.check_request(request).await.unwrap().into_inner().result.unwrap() {
        mcp_request_result::Result::Pass(_) => None,
        mcp_request_result::Result::Error(e) => Some(e.code()),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn claims_in_metadata_decide_and_count_in_the_mcp_session() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _stop) = start(dir.path()).await;
    let staff = || claims("ana", &["staff"]);
    // the agent's two calls per session, counted in the header's session
    assert_eq!(code(&mut client, convert(staff(), "session-a", 5.0)).await, None);
    assert_eq!(code(&mut client, convert(staff(), "session-a", 5.0)).await, None);
    let third = code(&mut client, convert(staff(), "session-a", 5.0)).await;
    assert_eq!(third, Some(Code::ResourceExhausted));
    // another session has its own budget; a rule still decides
    assert_eq!(code(&mut client, convert(staff(), "session-b", 5.0)).await, None);
    let huge = code(&mut client, convert(staff(), "session-b", 2e9)).await;
    assert_eq!(huge, Some(Code::PermissionDenied));
    // claims the access rules do not grant, and none at all
    let visitor = code(&mut client, convert(claims("vic", &["visitor"]), "session-c", 5.0)).await;
    assert_eq!(visitor, Some(Code::PermissionDenied));
    assert_eq!(
        code(&mut client, convert(None, "session-d", 5.0)).await,
        Some(Code::PermissionDenied)
    );
    // tools/list by claims: kept for staff, gone for a visitor
    for (who, kept) in [(staff(), true), (claims("vic", &["visitor"]), false)] {
        let listed = json!({"tools": [{"name": "convert"}]});
        let response = McpResponse {
            service_names: vec!["units".into()],
            method: "tools/list".into(),
            metadata_context: who,
            mcp_response: listed.to_string().into_bytes(),
        };
        let result = client.check_response(response).await.unwrap().into_inner().result.unwrap();
        let mcp_response_result::Result::Mutated(bytes) = result else { panic!("{result:?}") };
        let tools =
            serde_json::from_slice::<Value>(&bytes).unwrap()["tools"].as_array().unwrap().len();
        assert_eq!(tools, usize::from(kept));
    }
}
