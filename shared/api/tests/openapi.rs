#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The OpenAPI document covers every route, with problem responses and bearer auth.

use registry_api::http::ROUTES;

#[test]
fn every_router_path_is_documented() {
    let doc = serde_json::to_value(registry_api::openapi::document()).unwrap();
    let paths = doc["paths"].as_object().unwrap();
    for route in ROUTES {
        assert!(paths.contains_key(*route), "{route} missing from the OpenAPI document");
    }
    assert_eq!(paths.len(), ROUTES.len(), "documented paths that are not routes");
    assert_eq!(doc["components"]["securitySchemes"]["bearer"]["scheme"], "bearer");
    for schema in ["Problem", "AgentDefinition", "ToolDefinition", "Violation"] {
        assert!(doc["components"]["schemas"][schema].is_object(), "schema {schema} missing");
    }
    // Every authenticated operation declares the 401 problem and the bearer scheme.
    for (path, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            if path == "/healthz" || path == "/openapi.json" {
                continue;
            }
            assert!(op["responses"]["401"].is_object(), "{method} {path} lacks 401");
            assert!(
                op["responses"]["401"]["content"]["application/problem+json"].is_object(),
                "{method} {path}: 401 is not problem+json"
            );
            assert!(op["security"].is_array(), "{method} {path} lacks security");
        }
    }
}

/// The write-only secret is documented (as `writeOnly`), though never serialized.
#[test]
fn the_client_secret_is_documented_write_only() {
    let doc = serde_json::to_value(registry_api::openapi::document()).unwrap();
    let schemas = &doc["components"]["schemas"];
    let field = schemas["McpAuth"]["properties"]["clientSecret"].to_string();
    assert!(field.contains("#/components/schemas/Secret"), "{field}");
    assert_eq!(schemas["Secret"]["writeOnly"], true, "{}", schemas["Secret"]);
}
