//! Callers known by claims, over real gRPC on loopback: the server started in process on
//! a TCP port over the gateway on the embedded store, `metadata_context.claims` mapped by
//! the claims mapping, their session the forwarded `mcp-session-id` header.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use prost_types::Struct;
use registry_ext_mcp::proto::authorization_error::Code;
use registry_ext_mcp::proto::ext_mcp_client::ExtMcpClient;
use registry_ext_mcp::proto::{McpHeader, McpRequest, McpResponse, mcp_response_result};
use serde_json::{Value, json};
use tonic::transport::Channel;

use common::{claims, code, example, serve};

/// The example tool and the agent on the embedded store in `dir`, the server over them.
async fn start(dir: &std::path::Path) -> (ExtMcpClient<Channel>, tokio::sync::oneshot::Sender<()>) {
    serve(example(dir).await).await
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
