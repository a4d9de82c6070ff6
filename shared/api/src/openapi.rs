//! The OpenAPI document, generated from the handlers and the model types.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::http::{agents, compare, evaluate, resolve, schema, system, tools};

/// The admin API description.
#[derive(OpenApi)]
#[openapi(
    info(title = "Agent registry admin API", description = "Register agent and tool definitions for AWS Bedrock."),
    paths(
        agents::list_agents, agents::create_agent, agents::get_agent, agents::put_agent,
        agents::patch_agent, agents::delete_agent, agents::agent_versions, agents::agent_version,
        tools::list_tools, tools::create_tool, tools::get_tool, tools::put_tool,
        tools::patch_tool, tools::delete_tool, tools::tool_versions, tools::tool_version,
        schema::tool_schema, schema::validate_call, compare::compare_releases,
        resolve::resolve_agent, evaluate::evaluate_access,
        system::healthz, system::openapi_json,
    ),
    components(schemas(crate::http::Problem, crate::http::Code, registry_core::Violation)),
    modifiers(&BearerScheme),
    tags(
        (name = "agents", description = "Agent definitions"),
        (name = "tools", description = "Tool definitions"),
        (name = "resolution", description = "What a caller may run: agents resolved for Bedrock InvokeInlineAgent"),
        (name = "access", description = "Access-rule dry runs"),
        (name = "system", description = "Health and API description"),
    )
)]
pub struct ApiDoc;

/// Adds the `bearer` security scheme.
struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "Token from <data-dir>/auth.json (local) or the API Gateway identity",
                    ))
                    .build(),
            ),
        );
    }
}

/// The OpenAPI document.
pub fn document() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}
