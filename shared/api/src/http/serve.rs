//! Serving the router on a TCP listener with graceful shutdown.

use std::future::Future;

use axum::Router;
use tokio::net::TcpListener;

/// Serves `router` on `listener` until `shutdown` completes, then finishes the requests
/// in flight and returns.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router).with_graceful_shutdown(shutdown).await
}
