//! The Lambda's axum application: the registry router and the console behind API
//! Gateway auth.

use std::sync::Arc;

use registry_api::{AppState, Registry};

use crate::gateway_auth::GatewayAuth;

/// The registry router and the console with API Gateway identities as authenticator.
pub fn app(registry: Registry, auth: Arc<GatewayAuth>) -> axum::Router {
    registry_console::app(AppState::new(registry, auth))
}
