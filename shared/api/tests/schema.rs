#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue 5 over HTTP: typed tools are accepted or rejected on write, compiled by
//! `GET /tools/{id}/schema`, and calls are checked by `POST /tools/{id}/validate-call`.

mod common;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// A lambda tool with a `CartItemList` parameter (array of `CartItem` objects).
fn cart_tool(id: &str) -> Value {
    let mut tool = common::tool_json(id);
    tool["name"] = json!("cart");
    tool["types"] = json!({
        "CartItem": { "properties": {
            "productId": { "type": "string", "description": "Product ID to add to cart" },
            "quantity": { "type": "integer", "description": "Number of items (1-10)" },
            "giftWrap": { "type": "boolean", "description": "Whether to gift wrap this item", "optional": true }
        } },
        "CartItemList": { "type": "array", "items": { "type": "CartItem" }, "description": "List of cart items" }
    });
    tool["functionSchema"] = json!([{
        "name": "add-to-cart",
        "description": "Adds products to the cart",
        "parameters": {
            "cartItems": { "type": "CartItemList", "description": "Items to add to the cart" },
            "note": { "type": "string", "required": false, "description": "A note" }
        }
    }, {
        "name": "empty-cart",
        "description": "Empties the cart",
        "parameters": {}
    }]);
    tool
}

/// `POST /tools/{id}/validate-call` as reader.
/// A server holding the tool `cart`.
async fn cart_server() -> common::Server {
    let server = common::start().await;
    server.create_tool(&cart_tool("cart")).await;
    server
}

async fn validate_call(server: &common::Server, id: &str, body: &Value) -> common::Reply {
    let path = format!("/tools/{id}/validate-call");
    server.send(server.req(Method::POST, &path, &server.reader).json(body)).await
}

#[tokio::test]
async fn cart_item_list_is_accepted_and_exported_to_bedrock_as_a_json_string() {
    let server = common::start().await;
    let created = server.create_tool(&cart_tool("cart")).await;
    assert_eq!(created.body["types"]["CartItemList"]["items"]["type"], "CartItem");

    let reply = server.get("/tools/cart/schema?format=bedrock").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert_eq!(reply.etag(), created.etag());
    assert_eq!(reply.body["toolId"], "cart");
    assert_eq!(reply.body["version"], 1);
    assert_eq!(reply.body["format"], "bedrock");
    let function = &reply.body["schema"]["functions"][0];
    assert_eq!(function["name"], "add-to-cart");
    let parameter = &function["parameters"]["cartItems"];
    assert_eq!(parameter["type"], "string", "{}", reply.text);
    assert_eq!(parameter["required"], true);
    let description = parameter["description"].as_str().unwrap();
    assert!(description.contains("JSON-encoded"), "{description}");
    assert!(description.contains("productId"), "{description}");
    let report = reply.body["report"].as_array().unwrap();
    assert!(
        report.iter().any(|issue| issue["path"] == "/functionSchema/0/parameters/cartItems"
            && issue["mapping"].as_str().unwrap().contains("JSON-encoded")
            && issue["blocking"] == false),
        "{}",
        reply.text
    );
}

#[tokio::test]
async fn every_format_compiles_and_json_schema_is_the_default() {
    let server = cart_server().await;
    for format in ["json-schema", "bedrock", "openai", "anthropic", "mcp"] {
        let reply = server.get(&format!("/tools/cart/schema?format={format}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{format}: {}", reply.text);
        assert_eq!(reply.body["format"], format);
        let schema = &reply.body["schema"];
        let non_empty = schema.as_object().is_some_and(|o| !o.is_empty())
            || schema.as_array().is_some_and(|a| !a.is_empty());
        assert!(non_empty, "{format}: empty schema {}", reply.text);
        assert!(reply.body["report"].is_array(), "{format}");
        assert_eq!(reply.etag(), "\"1\"");
    }
    let default = server.get("/tools/cart/schema").await;
    assert_eq!(default.status, StatusCode::OK, "{}", default.text);
    assert_eq!(default.body["format"], "json-schema");
    let add = &default.body["schema"]["add-to-cart"];
    assert_eq!(add["type"], "object", "{}", default.text);
    assert!(add["properties"]["cartItems"].is_object(), "{}", default.text);
    let openai = server.get("/tools/cart/schema?format=openai").await;
    assert_eq!(openai.body["schema"][0]["function"]["strict"], true, "{}", openai.text);
}

#[tokio::test]
async fn schema_errors_are_problems() {
    let server = cart_server().await;

    let reply = server.get("/tools/cart/schema?format=xml").await;
    reply.assert_invalid_at("/format");
    let message = reply.body["errors"][0]["message"].as_str().unwrap();
    for format in ["json-schema", "bedrock", "openai", "anthropic", "mcp"] {
        assert!(message.contains(format), "{message}");
    }
    server.get("/tools/cart/schema?format=mcp&format=mcp").await.assert_invalid_at("/format");
    server.get("/tools/cart/schema?fromat=mcp").await.assert_invalid_at("/fromat");

    server.get("/tools/nope/schema").await.assert_problem(404, "NOT_FOUND");
    server.get("/tools/nope/schema?format=xml").await.assert_problem(400, "VALIDATION_FAILED");
    let anonymous = server.send(server.req(Method::GET, "/tools/cart/schema", "")).await;
    anonymous.assert_problem(401, "UNAUTHENTICATED");

    // The schema follows the live version.
    let mut changed = cart_tool("cart");
    changed["description"] = json!("Manages the cart.");
    let put = server.admin_json(Method::PUT, "/tools/cart", &changed).await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.text);
    let reply = server.get("/tools/cart/schema").await;
    assert_eq!(reply.body["version"], 2);
    assert_eq!(reply.etag(), "\"2\"");
}

#[tokio::test]
async fn validate_call_accepts_good_arguments() {
    let server = cart_server().await;
    let reply = validate_call(
        &server,
        "cart",
        &json!({ "function": "add-to-cart", "arguments": {
            "cartItems": [{ "productId": "p1", "quantity": 2 }, { "productId": "p2", "quantity": 1, "giftWrap": true }],
            "note": "thanks"
        } }),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert_eq!(reply.body, json!({ "valid": true }));
    let reply =
        validate_call(&server, "cart", &json!({ "function": "empty-cart", "arguments": {} })).await;
    assert_eq!(reply.body, json!({ "valid": true }), "{}", reply.text);
}

#[tokio::test]
async fn validate_call_lists_every_violation_with_its_path() {
    let server = cart_server().await;
    let every = json!({
        "cartItems": [{ "productId": "p1", "quantity": "two" }, { "quantity": 1, "color": "red" }],
        "note": 5,
        "extra": true
    });
    let every_path = vec![
        "/cartItems/0/quantity",
        "/cartItems/1/color",
        "/cartItems/1/productId",
        "/extra",
        "/note",
    ];
    for (arguments, expected) in
        [(every, every_path), (json!({}), vec!["/cartItems"]), (json!([1]), vec![""])]
    {
        let call = json!({ "function": "add-to-cart", "arguments": arguments });
        let reply = validate_call(&server, "cart", &call).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
        assert_eq!(reply.body["valid"], false, "{}", reply.text);
        let mut paths = reply.error_paths();
        paths.sort();
        assert_eq!(paths, expected, "{}", reply.text);
        assert!(reply.body["errors"].as_array().unwrap().iter().all(|e| e["message"].is_string()));
    }
}

#[tokio::test]
async fn validate_call_request_errors_are_problems() {
    let server = cart_server().await;

    let reply =
        validate_call(&server, "cart", &json!({ "function": "checkout", "arguments": {} })).await;
    reply.assert_invalid_at("/function");
    let message = reply.body["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("add-to-cart") && message.contains("empty-cart"), "{message}");

    let reply = validate_call(
        &server,
        "cart",
        &json!({ "function": "checkout", "arguments": {}, "args": {} }),
    )
    .await;
    reply.assert_invalid_at("/function");
    reply.assert_invalid_at("/args");

    validate_call(&server, "cart", &json!({ "arguments": {} }))
        .await
        .assert_invalid_at("/function");
    validate_call(&server, "cart", &json!({ "function": "empty-cart" }))
        .await
        .assert_invalid_at("/arguments");
    validate_call(&server, "cart", &json!({ "function": 5, "arguments": {} }))
        .await
        .assert_invalid_at("/function");

    validate_call(&server, "nope", &json!({ "function": "add-to-cart", "arguments": {} }))
        .await
        .assert_problem(404, "NOT_FOUND");
    let raw = server
        .req(Method::POST, "/tools/cart/validate-call", &server.reader)
        .header("content-type", "application/json")
        .body("{not json");
    server.send(raw).await.assert_problem(400, "MALFORMED_JSON");
    let anonymous = server
        .req(Method::POST, "/tools/cart/validate-call", "")
        .json(&json!({ "function": "empty-cart", "arguments": {} }));
    server.send(anonymous).await.assert_problem(401, "UNAUTHENTICATED");
}

#[tokio::test]
async fn a_union_with_a_repeated_discriminator_value_is_rejected_at_the_second_variant() {
    let server = common::start().await;
    let mut tool = common::tool_json("pay");
    tool["types"] = json!({
        "PaymentResult": { "anyOf": ["PaymentSuccess", "PaymentFailure"], "discriminator": "status" },
        "PaymentSuccess": { "properties": {
            "status": { "type": "string", "const": "done" },
            "transactionId": { "type": "string" }
        } },
        "PaymentFailure": { "properties": {
            "status": { "type": "string", "const": "done" },
            "errorCode": { "type": "string" }
        } }
    });
    let reply = server.send(server.req(Method::POST, "/tools", &server.editor).json(&tool)).await;
    reply.assert_invalid_at("/types/PaymentResult/anyOf/1");
    assert_eq!(server.get("/tools/pay").await.status, StatusCode::NOT_FOUND);

    // Distinct values are accepted.
    tool["types"]["PaymentFailure"]["properties"]["status"]["const"] = json!("failed");
    server.create_tool(&tool).await;
}

#[tokio::test]
async fn a_tool_bedrock_cannot_express_is_rejected_on_write() {
    let server = common::start().await;
    // An object type whose schema does not fit Bedrock's 500-character parameter
    // description, even in the compact notation.
    let properties: serde_json::Map<String, Value> = (0..40)
        .map(|i| (format!("someRatherLongPropertyName{i:02}"), json!({ "type": "string" })))
        .collect();
    let mut tool = common::tool_json("big");
    tool["types"] = json!({ "Big": { "properties": properties } });
    tool["functionSchema"][0]["parameters"]["big"] = json!({ "type": "Big", "description": "Big" });
    let reply = server.send(server.req(Method::POST, "/tools", &server.editor).json(&tool)).await;
    reply.assert_invalid_at("/functionSchema/0/parameters/big");
    let message = reply.body["errors"][0]["message"].as_str().unwrap();
    assert!(message.starts_with("cannot be expressed for bedrock"), "{message}");
    assert_eq!(reply.error_paths().len(), 1, "{}", reply.text);
}

#[test]
fn both_routes_are_documented_with_their_schemas() {
    let doc = serde_json::to_value(registry_api::openapi::document()).unwrap();
    let schema_op = &doc["paths"]["/tools/{id}/schema"]["get"];
    let params = schema_op["parameters"].as_array().unwrap();
    assert!(params.iter().any(|p| p["name"] == "format" && p["in"] == "query"), "{schema_op}");
    assert!(schema_op["responses"]["200"]["headers"]["ETag"].is_object(), "{schema_op}");
    let call_op = &doc["paths"]["/tools/{id}/validate-call"]["post"];
    assert!(call_op["requestBody"].is_object(), "{call_op}");
    for name in ["ToolSchema", "CallCheck", "CallRequest", "Format", "CompatIssue"] {
        assert!(doc["components"]["schemas"][name].is_object(), "schema {name} missing");
    }
    let formats = &doc["components"]["schemas"]["Format"]["enum"];
    assert_eq!(*formats, json!(["json-schema", "bedrock", "openai", "anthropic", "mcp"]));
}

/// Types written as the seed type language writes them (properties directly under the
/// type name) are accepted through the API, stored in the canonical `properties` form,
/// compile like the wrapped form, and are refused at the path the user wrote.
#[tokio::test]
async fn seed_form_types_load_as_written() {
    let server = common::start().await;
    let mut seed = cart_tool("seed");
    seed["types"]["CartItem"] = json!({
        "productId": { "type": "string", "description": "Product ID to add to cart" },
        "quantity": { "type": "integer", "description": "Number of items (1-10)" },
        "giftWrap": { "type": "boolean", "description": "Whether to gift wrap this item", "optional": true }
    });
    let created = server.send(server.req(Method::POST, "/tools", &server.editor).json(&seed)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let wrapped = server
        .send(server.req(Method::POST, "/tools", &server.editor).json(&cart_tool("cart")))
        .await;
    assert_eq!(wrapped.status, StatusCode::CREATED, "{}", wrapped.text);
    assert_eq!(created.body["types"], wrapped.body["types"], "stored in the wrapped form");
    for format in ["bedrock", "json-schema", "openai"] {
        let a = server.get(&format!("/tools/seed/schema?format={format}")).await;
        let b = server.get(&format!("/tools/cart/schema?format={format}")).await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.text);
        assert_eq!(a.body["schema"], b.body["schema"], "{format}");
    }
    // Re-sending the seed form is the same content: no new version.
    let again =
        server.send(server.req(Method::PUT, "/tools/seed", &server.editor).json(&seed)).await;
    assert_eq!(again.body["version"], 1, "{}", again.text);

    let mut bad = seed.clone();
    bad["toolId"] = json!("bad");
    bad["types"]["CartItem"]["quantity"]["type"] = json!("Quantity");
    bad["types"]["CartItem"]["count"] = json!({ "type": 5 });
    let reply = server.send(server.req(Method::POST, "/tools", &server.editor).json(&bad)).await;
    reply.assert_invalid_at("/types/CartItem/count/type");
    let mut bad = seed.clone();
    bad["toolId"] = json!("bad");
    bad["types"]["CartItem"]["quantity"]["type"] = json!("Quantity");
    let reply = server.send(server.req(Method::POST, "/tools", &server.editor).json(&bad)).await;
    reply.assert_invalid_at("/types/CartItem/quantity/type");
}
