//! The OpenAPI document, generated from the router ([`crate::http::routes`]) and the
//! handlers' `#[utoipa::path]`; this module adds the title, tags, shared schemas and
//! the bearer scheme.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

/// The admin API description without paths (the router adds them).
#[derive(OpenApi)]
#[openapi(
    info(title = "Agent registry admin API", description = "Register agent and tool definitions for AWS Bedrock."),
    components(schemas(crate::http::Problem, crate::http::Code, registry_core::Violation)),
    modifiers(&BearerScheme),
    tags(
        (name = "agents", description = "Agent definitions"),
        (name = "tools", description = "Tool definitions"),
        (name = "resolution", description = "What a caller may run: agents resolved for Bedrock InvokeInlineAgent"),
        (name = "access", description = "Access-rule dry runs"),
        (name = "system", description = "Health and API description"),
        (name = "proposals", description = "Reviewed changes: proposals, approvals (two-person rule)"),
        (name = "events", description = "The audit event stream: every state change, in commit order"),
        (name = "discovery", description = "The MCP Registry API (v0.1, read side), A2A agent cards, the AI catalog and tool search, filtered by who asks (docs/discovery.md)"),
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

/// The OpenAPI document of the router.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut doc = crate::http::routes::api().into_openapi();
    ServerLimitResponses.modify(&mut doc);
    doc
}

/// Adds the answers of the server's limits (414, 431, 503) to every operation.
struct ServerLimitResponses;

impl Modify for ServerLimitResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
        let answers = [
            ("414", "Request target over the server's limit (`URI_TOO_LONG`)"),
            ("431", "Request headers over the server's limit (`HEADERS_TOO_LARGE`)"),
            (
                "503",
                "Too many requests in flight (`OVERLOADED`, with `Retry-After`) or the request timed out (`TIMEOUT`)",
            ),
        ];
        for item in openapi.paths.paths.values_mut() {
            let operations =
                [&mut item.get, &mut item.put, &mut item.post, &mut item.patch, &mut item.delete];
            for operation in operations.into_iter().flatten() {
                for (status, description) in answers {
                    let content =
                        ContentBuilder::new().schema(Some(Ref::from_schema_name("Problem")));
                    let response = ResponseBuilder::new()
                        .description(description)
                        .content("application/problem+json", content.build())
                        .build();
                    operation
                        .responses
                        .responses
                        .entry(status.to_owned())
                        .or_insert(response.into());
                }
            }
        }
    }
}
