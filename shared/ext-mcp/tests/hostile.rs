//! Hostile callers over real gRPC on loopback: whatever arrives is answered in the
//! protocol, in bounded time, and a refused call counts nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

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

fn config() -> GatewayConfig {
    GatewayConfig {
        keys: None,
        claims: Some(
            ClaimsMapping::parse(r#"{"user.userId":"sub","user.roles":"groups"}"#).unwrap(),
        ),
        agent: Some("budget-bot".into()),
        max_staleness: Duration::from_secs(30),
    }
}

/// The server on a free port over `store`; the client and what stops it.
async fn serve(store: Arc<dyn Store>) -> (ExtMcpClient<Channel>, tokio::sync::oneshot::Sender<()>) {
    let gateway = Gateway::new(config(), StoreSource::new(store), DecisionPoint::ExtMcp);
    let (_, gateways) = tokio::sync::watch::channel(Arc::new(gateway));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(registry_ext_mcp::serve(listener, gateways, async {
        let _ = stopped.await;
    }));
    (ExtMcpClient::connect(format!("http://{address}")).await.unwrap(), stop)
}

/// The example tool as backend `units` (staff only), an agent allowed two calls per
/// session, on the embedded store.
async fn example(dir: &std::path::Path) -> Arc<dyn Store> {
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
    Arc::new(store)
}

fn text(s: &str) -> ProtoValue {
    ProtoValue { kind: Some(Kind::StringValue(s.into())) }
}

fn staff() -> Option<Struct> {
    let groups = ListValue { values: vec![text("staff")] };
    let claims = Struct {
        fields: [
            ("sub".to_owned(), text("ana")),
            ("groups".to_owned(), ProtoValue { kind: Some(Kind::ListValue(groups)) }),
        ]
        .into(),
    };
    Some(Struct {
        fields: [("claims".to_owned(), ProtoValue { kind: Some(Kind::StructValue(claims)) })]
            .into(),
    })
}

fn convert(session: &str) -> McpRequest {
    let params = json!({"name": "convert", "arguments": {"value": 5.0, "from": "km", "to": "m"}});
    McpRequest {
        service_names: vec!["units".into()],
        method: "tools/call".into(),
        metadata_context: staff(),
        mcp_request: Some(params.to_string().into_bytes()),
        headers: vec![McpHeader { key: "mcp-session-id".into(), value: session.into() }],
    }
}

async fn code(client: &mut ExtMcpClient<Channel>, request: McpRequest) -> Option<Code> {
    match client.check_request(request).await.unwrap().into_inner().result.unwrap() {
        mcp_request_result::Result::Pass(_) => None,
        mcp_request_result::Result::Error(e) => Some(e.code()),
        other => panic!("{other:?}"),
    }
}

/// A DynamoDB endpoint that accepts connections and never answers.
async fn silent_endpoint() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    format!("http://{address}")
}

#[tokio::test]
async fn a_table_that_never_answers_is_a_denial_in_bounded_time() {
    // SAFETY-free: the SDK reads credentials from the environment, as `ext-mcp` does
    let base = registry_sdk_config::sdk_config(Some(silent_endpoint().await)).await;
    let client = aws_sdk_dynamodb::Client::from_conf(
        aws_sdk_dynamodb::config::Builder::from(&base)
            .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
                "test", "test", None, None, "tests",
            ))
            .build(),
    );
    // the store as `ext-mcp --store dynamodb` opens it (DynamoStore::connect)
    let store = registry_store_dynamodb::DynamoStore::new(client, "registry", b"cursor key");
    let (mut client, _stop) = serve(Arc::new(store)).await;
    for _ in 0..3 {
        let started = Instant::now();
        let answered =
            tokio::time::timeout(Duration::from_secs(20), code(&mut client, convert("s-1"))).await;
        assert_eq!(answered, Ok(Some(Code::PermissionDenied)), "no answer in 20 s");
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    }
    let list = McpResponse {
        service_names: vec!["units".into()],
        method: "tools/list".into(),
        metadata_context: staff(),
        mcp_response: json!({"tools": [{"name": "convert"}]}).to_string().into_bytes(),
    };
    let listed = tokio::time::timeout(Duration::from_secs(20), client.check_response(list)).await;
    let result = listed.expect("no answer in 20 s").unwrap().into_inner().result;
    let Some(mcp_response_result::Result::Mutated(bytes)) = result else { panic!("{result:?}") };
    assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), json!({"tools": []}));
}

#[tokio::test]
async fn concurrent_calls_of_one_session_admit_exactly_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let (client, _stop) = serve(example(dir.path()).await).await;
    let calls = (0..64).map(|_| {
        let mut client = client.clone();
        tokio::spawn(async move { code(&mut client, convert("race")).await })
    });
    let mut answers = Vec::new();
    for call in calls {
        answers.push(call.await.unwrap());
    }
    let passed = answers.iter().filter(|a| a.is_none()).count();
    let exhausted = answers.iter().filter(|a| **a == Some(Code::ResourceExhausted)).count();
    assert_eq!((passed, exhausted), (2, 62), "{answers:?}");
    // and one after another: the budget holds exactly
    let mut client = client.clone();
    let mut passed = 0;
    for _ in 0..200 {
        passed += usize::from(code(&mut client, convert("serial")).await.is_none());
    }
    assert_eq!(passed, 2);
}
