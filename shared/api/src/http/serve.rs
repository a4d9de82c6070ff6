//! Serving the router on a TCP listener: HTTP/1.1 per connection (hyper) with the
//! [`ServerLimits`], and graceful shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::http::guard;
use crate::http::limits::ServerLimits;
use crate::http::stall::StallTimeout;
use crate::http::wire::ProblemIo;

/// Serves `router` on `listener` with the default [`ServerLimits`] until `shutdown`
/// completes, then finishes the requests in flight and returns.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(listener, router, ServerLimits::default(), shutdown).await
}

/// Serves `router` on `listener` under `limits` until `shutdown` completes: stops
/// accepting, lets idle connections close and requests in flight finish, then returns.
pub async fn serve_with(
    listener: TcpListener,
    router: Router,
    limits: ServerLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let service = TowerToHyperService::new(guard::apply(router, limits));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true)
        .writev(false)
        .max_buf_size(limits.read_buffer_bytes());
    let connections = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // At the cap, stop accepting: new clients wait in the listen backlog.
        let permit = tokio::select! {
            biased;
            () = &mut shutdown => break,
            permit = connections.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
        };
        let stream = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    on_accept_error(&error).await;
                    continue;
                }
            },
        };
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let io = TokioIo::new(ProblemIo::new(StallTimeout::new(stream, limits.write_timeout)));
        let connection = graceful.watch(builder.serve_connection(io, service.clone()));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection closed with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// Per-connection accept errors are skipped; resource exhaustion (such as too many
/// open files) is logged and waited out briefly instead of spinning.
async fn on_accept_error(error: &std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(error.kind(), ConnectionAborted | ConnectionRefused | ConnectionReset) {
        return;
    }
    tracing::warn!(%error, "accept failed; pausing");
    tokio::time::sleep(Duration::from_millis(100)).await;
}
