//! The gRPC server: the ExtMCP service on a TCP listener until `shutdown` completes.

use std::future::Future;
use std::time::Duration;

use registry_gateway::RuleSource;
use tokio::net::TcpListener;
use tonic::transport::server::TcpIncoming;

use crate::proto::ext_mcp_server::ExtMcpServer;
use crate::service::{ExtMcpService, Gateways};

/// The largest message decoded (tonic's default, 4 MiB); a larger one is refused by the
/// transport (`OUT_OF_RANGE`), which the gateway handles by its `failureMode`.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// How long calls in flight may finish after `shutdown`: agentgateway gives up on a call
/// after 10 s, and an idle HTTP/2 connection its client does not close keeps nothing.
pub const DRAIN: Duration = Duration::from_secs(10);

/// Serves agentgateway's ExtMCP service on `listener` (HTTP/2 without TLS), each message
/// decided by the gateway `gateways` holds then, until `shutdown` completes; then lets
/// the calls in flight finish (at most [`DRAIN`]). A fixed gateway:
/// `tokio::sync::watch::channel(gateway).1`.
pub async fn serve<S: RuleSource + 'static>(
    listener: TcpListener,
    gateways: Gateways<S>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    let service = ExtMcpServer::new(ExtMcpService::new(gateways))
        .max_decoding_message_size(MAX_MESSAGE_BYTES);
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut stopping = stopped.clone();
    let serving = tonic::transport::Server::builder()
        .add_service(service)
        .serve_with_incoming_shutdown(incoming, async move {
            let _ = stopping.wait_for(|stop| *stop).await;
        });
    let drained = async move {
        shutdown.await;
        let _ = stop.send(true);
        tokio::time::sleep(DRAIN).await;
        drop(stopped);
    };
    tokio::select! {
        served = serving => served,
        () = drained => Ok(()),
    }
}
