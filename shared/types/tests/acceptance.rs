//! Issue 5 acceptance: a `CartItemList` parameter exported to Bedrock as a documented
//! JSON-string parameter and decoded back; a union with a repeated discriminator value.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Tool;
use registry_types::{
    BedrockEncoding, BedrockType, Format, SchemaError, bedrock_functions,
    bedrock_parameter_encodings, compile, decode_bedrock_arguments, validate_arguments,
    validate_tool_schema,
};
use serde_json::json;

fn cart_tool() -> Tool {
    Tool::parse(json!({
        "types": {
            "CartItem": {
                "properties": {
                    "productId": { "type": "string", "description": "Product ID to add to cart" },
                    "quantity": { "type": "integer", "description": "Number of items (1-10)" },
                    "giftWrap": { "type": "boolean", "description": "Whether to gift wrap this item", "optional": true }
                }
            },
            "CartItemList": { "type": "array", "items": { "type": "CartItem" }, "description": "List of cart items" }
        },
        "functionSchema": [{
            "name": "add-to-cart",
            "description": "Adding products to cart",
            "parameters": {
                "cartItems": { "type": "CartItemList", "description": "Items to add to the cart" },
                "note": { "type": "string", "required": false, "description": "A note" }
            },
            "requireConfirmation": "ENABLED"
        }]
    }))
}

#[test]
fn cart_item_list_is_accepted_for_bedrock() {
    let tool = cart_tool();
    assert_eq!(validate_tool_schema(tool.functions(), tool.types(), true), vec![]);
}

#[test]
fn cart_item_list_exports_to_bedrock_as_a_documented_json_string() {
    let tool = cart_tool();
    let functions = bedrock_functions(tool.functions().unwrap(), tool.types());
    assert_eq!(functions.len(), 1);
    let parameter = &functions[0].parameters["cartItems"];
    assert_eq!(parameter.ty, BedrockType::String);
    assert!(parameter.required);
    let description = parameter.description.as_deref().unwrap();
    assert!(description.starts_with("Items to add to the cart. JSON-encoded"), "{description}");
    assert!(description.contains("\"productId\""), "{description}");
    assert!(description.contains("\"items\""), "{description}");
    assert!(description.chars().count() <= 500);
    assert_eq!(functions[0].parameters["note"].ty, BedrockType::String);
    assert!(!functions[0].parameters["note"].required);

    // Bedrock's own shape, as resolution puts it in actionGroups[].functionSchema.functions.
    let wire = serde_json::to_value(&functions[0]).unwrap();
    assert_eq!(wire["name"], "add-to-cart");
    assert_eq!(wire["requireConfirmation"], "ENABLED");
    assert_eq!(wire["parameters"]["cartItems"]["type"], "string");
    assert_eq!(wire["parameters"]["cartItems"]["required"], true);

    // The embedded schema is real JSON Schema that accepts a cart and rejects a bad one.
    let embedded = description.split_once("JSON Schema ").unwrap().1;
    let schema: serde_json::Value = serde_json::from_str(embedded).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&json!([{ "productId": "p1", "quantity": 2 }])));
    assert!(!validator.is_valid(&json!([{ "productId": "p1" }])));

    // The compatibility report documents the mapping.
    let compiled = compile(tool.functions(), tool.types(), Format::Bedrock).unwrap();
    assert!(!compiled.is_blocked());
    assert!(
        compiled.report.iter().any(|i| i.path == "/functionSchema/0/parameters/cartItems"
            && i.mapping.contains("JSON-encoded")),
        "{:?}",
        compiled.report
    );
    assert_eq!(compiled.schema["functions"][0], wire);
}

#[test]
fn a_bedrock_call_carrying_the_json_is_decoded_and_validated() {
    let tool = cart_tool();
    let function = tool.function("add-to-cart");
    let encodings = bedrock_parameter_encodings(function, tool.types());
    assert_eq!(encodings["cartItems"], BedrockEncoding::Json);
    assert_eq!(encodings["note"], BedrockEncoding::String);

    let value =
        r#"[{"productId":"p1","quantity":2},{"productId":"p2","quantity":1,"giftWrap":true}]"#;
    let args = decode_bedrock_arguments(function, tool.types(), [("cartItems", value)]).unwrap();
    assert_eq!(args["cartItems"][1]["giftWrap"], true);
    assert_eq!(validate_arguments(function, tool.types(), &args), vec![]);

    let bad = r#"[{"productId":"p1","quantity":"two"},{"quantity":1,"color":"red"}]"#;
    let errors =
        decode_bedrock_arguments(function, tool.types(), [("cartItems", bad)]).unwrap_err();
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["/cartItems/0/quantity", "/cartItems/1/productId", "/cartItems/1/color"]);

    let errors = decode_bedrock_arguments(function, tool.types(), [("cartItems", "[{not json")])
        .unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].path, "/cartItems");
    assert!(errors[0].message.contains("JSON-encoded"));

    let errors = decode_bedrock_arguments(function, tool.types(), [("note", "hi")]).unwrap_err();
    assert_eq!(errors, vec![SchemaError::new("/cartItems", "required")]);
}

#[test]
fn union_variants_sharing_a_discriminator_value_are_rejected_at_the_second_variant() {
    let tool = Tool::parse(json!({
        "types": {
            "PaymentResult": { "anyOf": ["PaymentSuccess", "PaymentFailure"], "discriminator": "status" },
            "PaymentSuccess": { "properties": {
                "status": { "type": "string", "const": "done" },
                "transactionId": { "type": "string" }
            } },
            "PaymentFailure": { "properties": {
                "status": { "type": "string", "const": "done" },
                "errorCode": { "type": "string" }
            } }
        }
    }));
    let errors = validate_tool_schema(None, tool.types(), false);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].path, "/types/PaymentResult/anyOf/1");
    assert!(errors[0].message.contains("PaymentSuccess"), "{}", errors[0].message);
}
