//! The gRPC server: the ExtMCP service on a TCP listener until `shutdown` completes.

use std::future::Future;
use std::sync::Arc;

use registry_gateway::Gateway;
use registry_guard::RuleSource;
use tokio::net::TcpListener;
use tonic::transport::server::TcpIncoming;

use crate::ExtMcpService;
use crate::proto::ext_mcp_server::ExtMcpServer;

/// The largest message decoded (tonic's default, 4 MiB); a larger one is refused by the
/// transport (`OUT_OF_RANGE`), which the gateway handles by its `failureMode`.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// Serves `gateway` as agentgateway's ExtMCP service on `listener` (HTTP/2 without TLS)
/// until `shutdown` completes, then lets the calls in flight finish.
pub async fn serve<S: RuleSource + 'static>(
    listener: TcpListener,
    gateway: Arc<Gateway<S>>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    let service =
        ExtMcpServer::new(ExtMcpService::new(gateway)).max_decoding_message_size(MAX_MESSAGE_BYTES);
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    tonic::transport::Server::builder()
        .add_service(service)
        .serve_with_incoming_shutdown(incoming, shutdown)
        .await
}
