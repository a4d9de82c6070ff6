//! The Lambda's axum application: the registry router behind API Gateway auth.

use std::sync::Arc;

use registry_api::{AppState, Registry};

use crate::gateway_auth::GatewayAuth;

/// The registry router with API Gateway identities as authenticator.
pub fn app(registry: Registry, auth: Arc<GatewayAuth>) -> axum::Router {
    registry_api::router(AppState::new(registry, auth))
}
