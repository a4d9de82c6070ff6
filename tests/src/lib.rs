#![doc = include_str!("../README.md")]

pub mod agentcore;
pub mod binaries;
pub mod events;
pub mod iam;
pub mod lambda;
pub mod permissions;
pub mod principal;
pub mod recorder;
pub mod response_url;
pub mod runtime_api;
pub mod serve;
pub mod sqs;
pub mod template;
pub mod webdriver;

pub use lambda::{Lambda, Table};
pub use response_url::{Put, ResponseUrl};
pub use runtime_api::{Answer, RuntimeApi};

/// Serves `app` on a free loopback port for the life of the test's runtime; its address.
pub(crate) async fn serve_local(app: axum::Router) -> std::net::SocketAddr {
    let listener =
        tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("addr: {e}"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// An endpoint (`http://127.0.0.1:PORT`, the port the system picked) that accepts
/// connections and never answers: a table, or a registry, that hangs.
pub async fn silent_endpoint() -> String {
    let listener =
        tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let address = listener.local_addr().unwrap_or_else(|e| panic!("addr: {e}"));
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    format!("http://{address}")
}

/// One JSON-protocol call (`X-Amz-Target`) to the local AWS-API server, which does not
/// check signatures; the answer as JSON (`null` when it is none).
pub async fn aws_json(
    endpoint: &str,
    target: &str,
    service: &str,
    body: serde_json::Value,
) -> serde_json::Value {
    let auth = format!(
        "AWS4-HMAC-SHA256 Credential=test/20261125/us-east-1/{service}/aws4_request, SignedHeaders=host, Signature=e2e"
    );
    let reply = reqwest::Client::new()
        .post(endpoint)
        .header("x-amz-target", target)
        .header("content-type", "application/x-amz-json-1.1")
        .header("authorization", auth)
        .body(body.to_string())
        .send()
        .await
        .unwrap_or_else(|e| panic!("{target} at {endpoint}: {e}"));
    reply.json().await.unwrap_or(serde_json::Value::Null)
}
