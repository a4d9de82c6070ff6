//! Issue 5 acceptance: a Bedrock call carrying a `CartItemList` as a JSON string is
//! decoded and validated against the registry tool definition.
#![cfg(feature = "schema")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bedrock_action_group::{ActionGroupEvent, Arguments, ToolError, parse_event, respond};
use registry_types::{FunctionDefinition, TypeDefinition};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn tool() -> (FunctionDefinition, BTreeMap<String, TypeDefinition>) {
    let types: BTreeMap<String, TypeDefinition> = serde_json::from_value(json!({
        "CartItem": {"properties": {
            "productId": {"type": "string", "description": "Product id"},
            "quantity": {"type": "integer", "description": "How many"},
            "giftWrap": {"type": "boolean", "optional": true}
        }},
        "CartItemList": {"type": "array", "items": {"type": "CartItem"}, "description": "Items"}
    }))
    .unwrap();
    let function: FunctionDefinition = serde_json::from_value(json!({
        "name": "add_to_cart", "description": "Add products to the cart",
        "parameters": {
            "cartItems": {"type": "CartItemList", "description": "Items to add"},
            "note": {"type": "string", "description": "Note", "required": false}
        }
    }))
    .unwrap();
    (function, types)
}

fn event(cart_items: &str) -> Value {
    json!({
        "messageVersion": "1.0", "agent": {"name": "a", "id": "A", "alias": "B", "version": "1"},
        "inputText": "add", "sessionId": "s", "actionGroup": "cart", "function": "add_to_cart",
        "parameters": [{"name": "cartItems", "type": "string", "value": cart_items}],
        "sessionAttributes": {}, "promptSessionAttributes": {}
    })
}

fn function_event(raw: &Value) -> bedrock_action_group::FunctionEvent {
    match parse_event(raw).unwrap() {
        ActionGroupEvent::Function(e) => e,
        ActionGroupEvent::Api(_) => panic!("function event expected"),
    }
}

#[test]
fn a_json_string_cart_is_decoded_and_validated() {
    let (function, types) = tool();
    let raw = event(
        r#"[{"productId":"p-1","quantity":2},{"productId":"p-2","quantity":1,"giftWrap":true}]"#,
    );
    let args =
        Arguments::from_event_with_schema(&function_event(&raw), &function, Some(&types)).unwrap();
    assert_eq!(args.get("cartItems").unwrap()[1]["giftWrap"], json!(true));
}

#[test]
fn bad_items_become_a_reprompt_naming_each_path() {
    let (function, types) = tool();
    let raw = event(r#"[{"productId":"p-1","quantity":"two"},{"quantity":1}]"#);
    let fe = function_event(&raw);
    let err = Arguments::from_event_with_schema(&fe, &function, Some(&types)).unwrap_err();
    let pointers: Vec<&str> = err.errors.iter().map(|e| e.pointer.as_str()).collect();
    assert!(pointers.contains(&"/cartItems/0/quantity"), "{pointers:?}");
    assert!(pointers.contains(&"/cartItems/1/productId"), "{pointers:?}");
    let response =
        respond(&ActionGroupEvent::Function(fe), Err::<(), _>(ToolError::InvalidArguments(err)));
    let body = serde_json::to_value(&response).unwrap();
    assert_eq!(body["response"]["functionResponse"]["responseState"], "REPROMPT");
    let text =
        body["response"]["functionResponse"]["responseBody"]["TEXT"]["body"].as_str().unwrap();
    assert!(text.contains("/cartItems/0/quantity"), "{text}");
}

#[test]
fn malformed_json_is_an_invalid_argument() {
    let (function, types) = tool();
    let raw = event("[{\"productId\": ");
    let err = Arguments::from_event_with_schema(&function_event(&raw), &function, Some(&types))
        .unwrap_err();
    assert_eq!(err.errors[0].pointer, "/cartItems");
}
