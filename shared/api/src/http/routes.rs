//! The router: every route, the body limit, request ids, logging and panic safety.
//!
//! Routes are only added through [`utoipa_axum::routes!`], which takes the path and
//! methods from each handler's `#[utoipa::path]`: the OpenAPI document is generated
//! from this router, so a route cannot exist undocumented.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::json::MAX_BODY_BYTES;
use crate::http::resource_routes::{agents, tools};
use crate::http::{AppState, authorize, compare, evaluate, keys, resolve, schema, system, trace};
use crate::openapi::ApiDoc;

/// Every route with its OpenAPI operation, before state and layers.
pub fn api() -> OpenApiRouter<AppState> {
    let router = agents::routes(OpenApiRouter::with_openapi(ApiDoc::openapi()))
        .routes(routes!(resolve::resolve_agent))
        .routes(routes!(evaluate::evaluate_access));
    let router = tools::routes(router)
        .routes(routes!(crate::http::discovery::search_tools))
        .routes(routes!(crate::http::discovery::list_servers))
        .routes(routes!(crate::http::discovery::server_versions))
        .routes(routes!(crate::http::discovery::server_version))
        .routes(routes!(crate::http::discovery::agent_card))
        .routes(routes!(crate::http::discovery::ai_catalog))
        .routes(routes!(crate::http::protected_resource::protected_resource_metadata))
        .routes(routes!(schema::tool_schema))
        .routes(routes!(schema::validate_call))
        .routes(routes!(authorize::authorize_call))
        .routes(routes!(compare::compare_releases))
        .routes(routes!(system::openapi_json))
        .routes(routes!(system::healthz))
        .routes(routes!(keys::jwks))
        .routes(routes!(keys::openid_configuration))
        .routes(routes!(keys::list_keys))
        .routes(routes!(keys::rotate_keys))
        .routes(routes!(keys::remove_key))
        .routes(routes!(crate::http::token::tool_token));
    let router = router
        .routes(routes!(crate::http::events::list_events))
        .routes(routes!(crate::http::proposals::list_proposals))
        .routes(routes!(crate::http::proposals::get_proposal))
        .routes(routes!(crate::http::proposals::approve_proposal))
        .routes(routes!(crate::http::proposals::reject_proposal))
        .routes(routes!(crate::http::proposals::cancel_proposal));
    #[cfg(feature = "aws")]
    let router = router
        .routes(routes!(crate::http::aws::verify_tool))
        .routes(routes!(crate::http::aws::test_invoke))
        .routes(routes!(crate::http::aws::publish_agent))
        .routes(routes!(crate::http::aws::import_bedrock))
        .routes(routes!(crate::http::aws::agent_publication, crate::http::aws::unpublish_agent));
    router
}

/// The admin API router over `state`.
pub fn router(state: AppState) -> Router {
    let (routes, _) = api().split_for_parts();
    routes
        .fallback(system::not_found)
        .method_not_allowed_fallback(system::method_not_allowed)
        .with_state(state)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(CatchPanicLayer::custom(system::panic_problem))
        .layer(trace::layer())
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
}
