//! Shared state of the router: the registry and the authenticator.

use std::sync::Arc;

use crate::auth::Authenticator;
use crate::http::write_lock::WriteLocks;
use crate::service::Registry;

/// What every handler can reach through `State<AppState>`.
#[derive(Clone)]
pub struct AppState {
    /// The service layer.
    pub registry: Registry,
    /// Turns requests into principals.
    pub authenticator: Arc<dyn Authenticator>,
    /// Serialises writes to one definition within this process.
    pub writes: Arc<WriteLocks>,
}

impl AppState {
    /// State over a registry and an authenticator.
    pub fn new(registry: Registry, authenticator: Arc<dyn Authenticator>) -> Self {
        Self { registry, authenticator, writes: Arc::default() }
    }
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState").finish_non_exhaustive()
    }
}
