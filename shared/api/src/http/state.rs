//! Shared state of the router: the registry's services and the authenticator. Handlers
//! extract the one service they call (`State<Catalog>`, `State<Resolver>`, ...) through
//! the [`FromRef`] implementations here.

use std::sync::Arc;

use axum::extract::FromRef;

use crate::auth::Authenticator;
use crate::http::write_lock::WriteLocks;
#[cfg(feature = "aws")]
use crate::service::Publishing;
use crate::service::{CallPolicy, Catalog, Discovery, Registry, Resolver, Tokens};

/// What every handler can reach through `State<AppState>`.
#[derive(Clone)]
pub struct AppState {
    /// The services.
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

macro_rules! service_from_state {
    ($($service:ident: $field:ident),*) => {$(
        impl FromRef<AppState> for $service {
            fn from_ref(state: &AppState) -> Self {
                state.registry.$field.clone()
            }
        }
    )*};
}
service_from_state!(
    Catalog: catalog,
    Resolver: resolver,
    CallPolicy: calls,
    Tokens: tokens,
    Discovery: discovery
);
#[cfg(feature = "aws")]
service_from_state!(Publishing: publishing);
