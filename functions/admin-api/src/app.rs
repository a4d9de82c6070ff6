//! The Lambda's axum application: the registry router behind API Gateway auth.

use std::sync::Arc;

use registry_api::{AppState, Registry};

use crate::gateway_auth::GatewayAuth;
use crate::gateway_problems::gateway_problems;

/// The registry router with `auth` as authenticator and API Gateway auth problems.
pub fn app(registry: Registry, auth: Arc<GatewayAuth>) -> axum::Router {
    registry_api::router(AppState::new(registry, auth.clone()))
        .layer(axum::middleware::from_fn_with_state(auth, gateway_problems))
}
