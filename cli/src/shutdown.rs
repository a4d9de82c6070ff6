//! Waiting for SIGTERM or Ctrl-C.

/// Completes on Ctrl-C or (on Unix) SIGTERM.
pub async fn signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutdown signal received, finishing requests in flight");
}

/// One shutdown signal shared by the servers of a process (`serve --ext-mcp`).
#[derive(Debug, Clone)]
pub struct Stop(tokio::sync::watch::Receiver<bool>);

impl Stop {
    /// Stops on Ctrl-C or SIGTERM ([`signal`]).
    pub fn on_signal() -> Self {
        let (stop, stopped) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            signal().await;
            let _ = stop.send(true);
        });
        Self(stopped)
    }

    /// Completes once the signal came.
    pub fn stopped(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut stopped = self.0.clone();
        async move {
            let _ = stopped.wait_for(|stop| *stop).await;
        }
    }
}
