//! Messages no conforming gateway sends, over real gRPC: a string field that is not
//! UTF-8 cannot be decoded as protobuf, so tonic answers a gRPC error (left to the
//! gateway's `failureMode`), and the server goes on answering.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use registry_ext_mcp::proto::ext_mcp_client::ExtMcpClient;
use registry_ext_mcp::proto::{McpRequest, McpRequestResult, mcp_request_result};
use registry_gateway::{DecisionPoint, Gateway, GatewayConfig, StoreSource};
use registry_store_sqlite::SqliteStore;
use tonic::codegen::http::uri::PathAndQuery;

/// `McpRequest` with its `method` (field 2) as bytes: the same wire type, unchecked.
#[derive(Clone, PartialEq, prost::Message)]
struct RawRequest {
    #[prost(bytes = "vec", tag = "2")]
    method: Vec<u8>,
}

#[tokio::test]
async fn a_method_that_is_not_utf8_is_a_grpc_error_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("registry.db")).unwrap();
    let config = GatewayConfig {
        keys: None,
        claims: Some(registry_gateway::ClaimsMapping::parse(r#"{"user.userId":"sub"}"#).unwrap()),
        agent: None,
        max_staleness: std::time::Duration::from_secs(30),
    };
    let gateway = Gateway::new(config, StoreSource::new(Arc::new(store)), DecisionPoint::ExtMcp);
    let (_, gateways) = tokio::sync::watch::channel(Arc::new(gateway));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(registry_ext_mcp::serve(listener, gateways, async {
        let _ = stopped.await;
    }));
    let channel = tonic::transport::Endpoint::from_shared(url).unwrap().connect().await.unwrap();
    let mut raw = tonic::client::Grpc::new(channel.clone());
    raw.ready().await.unwrap();
    let path = PathAndQuery::from_static("/agentgateway.dev.ext_mcp.ExtMcp/CheckRequest");
    let codec = tonic_prost::ProstCodec::<RawRequest, McpRequestResult>::default();
    let bad = RawRequest { method: vec![b't', 0xff, 0xfe] };
    let answered = raw.unary(tonic::Request::new(bad), path, codec).await;
    assert!(answered.is_err(), "{answered:?}");
    // still answering: a method that is neither call nor list passes
    let request = McpRequest { method: "ping".into(), ..Default::default() };
    let result = ExtMcpClient::new(channel).check_request(request).await.unwrap().into_inner();
    assert!(matches!(result.result, Some(mcp_request_result::Result::Pass(_))), "{result:?}");
}
