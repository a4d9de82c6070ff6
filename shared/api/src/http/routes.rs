//! The router: every route, the body limit, request ids, logging and panic safety.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};

use crate::http::json::MAX_BODY_BYTES;
use crate::http::{AppState, agents, compare, evaluate, resolve, schema, system, tools, trace};

/// Every route path of the router, as written in the OpenAPI document.
pub const ROUTES: &[&str] = &[
    "/agents",
    "/agents/{id}",
    "/agents/{id}/versions",
    "/agents/{id}/versions/{v}",
    "/agents/{id}/resolve",
    "/access/evaluate",
    "/tools",
    "/tools/{id}",
    "/tools/{id}/versions",
    "/tools/{id}/versions/{v}",
    "/tools/{id}/schema",
    "/tools/{id}/validate-call",
    "/tools/{id}/compare",
    "/openapi.json",
    "/healthz",
];

/// The admin API router over `state`.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/agents", get(agents::list_agents).post(agents::create_agent))
        .route(
            "/agents/{id}",
            get(agents::get_agent)
                .put(agents::put_agent)
                .patch(agents::patch_agent)
                .delete(agents::delete_agent),
        )
        .route("/agents/{id}/versions", get(agents::agent_versions))
        .route("/agents/{id}/versions/{v}", get(agents::agent_version))
        .route("/agents/{id}/resolve", post(resolve::resolve_agent))
        .route("/access/evaluate", post(evaluate::evaluate_access))
        .route("/tools", get(tools::list_tools).post(tools::create_tool))
        .route(
            "/tools/{id}",
            get(tools::get_tool)
                .put(tools::put_tool)
                .patch(tools::patch_tool)
                .delete(tools::delete_tool),
        )
        .route("/tools/{id}/versions", get(tools::tool_versions))
        .route("/tools/{id}/versions/{v}", get(tools::tool_version))
        .route("/tools/{id}/schema", get(schema::tool_schema))
        .route("/tools/{id}/validate-call", post(schema::validate_call))
        .route("/tools/{id}/compare", get(compare::compare_releases))
        .route("/openapi.json", get(system::openapi_json))
        .route("/healthz", get(system::healthz))
        .fallback(system::not_found)
        .method_not_allowed_fallback(system::method_not_allowed)
        .with_state(state)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(CatchPanicLayer::custom(system::panic_problem))
        .layer(trace::layer())
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
}
