#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The OpenAPI document is generated from the router: every documented operation is
//! routed with exactly its methods, the served document parses as OpenAPI 3.1, and
//! operations declare problem responses and bearer auth.

mod common;

use common::start;
use reqwest::Method;

/// Methods the API could use.
const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

#[tokio::test]
async fn the_router_serves_exactly_the_documented_operations() {
    let s = start().await;
    let served = s.send(s.req(Method::GET, "/openapi.json", "")).await;
    assert_eq!(served.status, 200);
    // The served document is the generated one, OpenAPI 3.1, every `$ref` resolving.
    assert_eq!(served.body, serde_json::to_value(registry_api::openapi::document()).unwrap());
    assert!(served.body["openapi"].as_str().unwrap().starts_with("3.1"));
    let mut refs = Vec::new();
    collect_refs(&served.body, &mut refs);
    assert!(!refs.is_empty());
    for reference in refs {
        let pointer = reference.strip_prefix('#').expect("local reference");
        assert!(served.body.pointer(pointer).is_some(), "dangling $ref {reference}");
    }

    let paths = served.body["paths"].as_object().unwrap();
    assert!(paths.len() >= 14, "only {} paths documented", paths.len());
    for (path, item) in paths {
        let concrete = path.replace("{id}", "x").replace("{v}", "1");
        for method in METHODS {
            let r = s
                .send(s.req(
                    Method::from_bytes(method.to_uppercase().as_bytes()).unwrap(),
                    &concrete,
                    &s.admin,
                ))
                .await;
            let routed = r.status != 405 && !r.text.contains("no route for");
            let documented = item.get(method).is_some();
            assert_eq!(
                routed, documented,
                "{method} {path}: routed={routed}, documented={documented}: {}",
                r.text
            );
        }
    }
    // A path that is not documented is not routed either.
    s.send(s.req(Method::GET, "/agents/x/y/z", &s.admin)).await.assert_problem(404, "NOT_FOUND");
}

/// Every `$ref` in `value`.
fn collect_refs(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, item) in map {
                match (key.as_str(), item) {
                    ("$ref", serde_json::Value::String(r)) => out.push(r.clone()),
                    _ => collect_refs(item, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|i| collect_refs(i, out)),
        _ => {}
    }
}

#[test]
fn operations_declare_problems_and_auth() {
    let doc = serde_json::to_value(registry_api::openapi::document()).unwrap();
    let paths = doc["paths"].as_object().unwrap();
    assert_eq!(doc["components"]["securitySchemes"]["bearer"]["scheme"], "bearer");
    for schema in ["Problem", "AgentDefinition", "ToolDefinition", "Violation", "Code"] {
        assert!(doc["components"]["schemas"][schema].is_object(), "schema {schema} missing");
    }
    // Every operation declares the server limits' problems; every authenticated one
    // the 401 problem and the bearer scheme.
    for (path, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            for status in ["414", "431", "503"] {
                assert!(
                    op["responses"][status]["content"]["application/problem+json"].is_object(),
                    "{method} {path} lacks the {status} problem"
                );
            }
            // unauthenticated: health, this document, the principal token's key set, the
            // discovery routes' protected-resource metadata
            let public = [
                "/healthz",
                "/openapi.json",
                "/.well-known/jwks.json",
                "/.well-known/oauth-protected-resource",
            ];
            if public.contains(&path.as_str()) || path == "/.well-known/openid-configuration" {
                assert!(op.get("security").is_none(), "{method} {path} needs no token");
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
