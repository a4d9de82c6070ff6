#![doc = include_str!("../README.md")]

pub mod agent;
pub mod assets;
pub mod authorize;
pub mod compare;
pub mod context;
pub mod detail;
pub mod diff;
pub mod edit;
pub mod events;
pub mod history;
pub mod html;
pub mod kind;
pub mod lists;
pub mod page;
pub mod parts;
pub mod posted;
pub mod proposals;
pub mod resolve;
pub mod search;
pub mod session;
pub mod sign_in;
pub mod tool;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::{from_fn, map_response};
use axum::routing::{get, post};
use registry_api::AppState;
use registry_core::{AgentDefinition, ToolDefinition};

use crate::session::Sessions;

/// Largest form the console accepts.
pub const MAX_FORM_BYTES: usize = 256 * 1024;

/// What every console handler reaches: the API's state (service, authenticator) and
/// the sessions.
#[derive(Clone)]
pub struct Console {
    /// The API's state: the same service and authenticator the API routes use.
    pub api: AppState,
    /// Signed-in sessions.
    pub sessions: Arc<Sessions>,
}

impl std::fmt::Debug for Console {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Console").finish_non_exhaustive()
    }
}

/// The console's routes (`/console/...`, and `/` sent to `/console`).
pub fn router(state: AppState) -> Router {
    let console = Console { api: state, sessions: Arc::default() };
    Router::new()
        .route("/", get(sign_in::root))
        .route("/console", get(sign_in::home))
        .route("/console/", get(sign_in::home))
        .route("/console/sign-in", get(sign_in::form).post(sign_in::submit))
        .route("/console/sign-out", post(sign_in::sign_out))
        .route("/console/static/console.css", get(assets::css))
        .route("/console/static/console.js", get(assets::js))
        .route("/console/agents", get(lists::agents))
        .route("/console/tools", get(lists::tools))
        .route("/console/tools/search", get(search::show))
        .route("/console/agents/{id}", get(agent::show))
        .route("/console/tools/{id}", get(tool::show))
        .route("/console/agents/{id}/history", get(history::show::<AgentDefinition>))
        .route("/console/tools/{id}/history", get(history::show::<ToolDefinition>))
        .route("/console/agents/{id}/resolve", get(resolve::show))
        .route("/console/tools/{id}/compare", get(compare::show))
        .route(
            "/console/agents/{id}/edit",
            get(edit::form::<AgentDefinition>).post(edit::submit::<AgentDefinition>),
        )
        .route(
            "/console/tools/{id}/edit",
            get(edit::form::<ToolDefinition>).post(edit::submit::<ToolDefinition>),
        )
        .route("/console/agents/{id}/lifecycle", post(edit::lifecycle::<AgentDefinition>))
        .route("/console/tools/{id}/lifecycle", post(edit::lifecycle::<ToolDefinition>))
        .route("/console/tools/{id}/authorize", get(authorize::form).post(authorize::submit))
        .route("/console/proposals", get(proposals::list))
        .route("/console/proposals/{id}", get(proposals::show))
        .route("/console/proposals/{id}/approve", post(proposals::approve))
        .route("/console/proposals/{id}/reject", post(proposals::reject))
        .route("/console/events", get(events::list))
        .with_state(console)
        .layer(DefaultBodyLimit::max(MAX_FORM_BYTES))
        .layer(map_response(assets::secure))
        .layer(from_fn(assets::timed))
        .layer(registry_api::http::trace::layer())
}

/// The API router with the console beside it: what `agent-registry serve` and the
/// admin-api Lambda serve.
pub fn app(state: AppState) -> Router {
    registry_api::router(state.clone()).merge(router(state))
}
