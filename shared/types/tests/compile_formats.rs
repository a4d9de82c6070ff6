//! What each target format looks like, and what its compatibility report says.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Tool;
use registry_types::{Format, compile, validate_arguments, validate_tool_schema};
use serde_json::json;

fn tool() -> Tool {
    Tool::parse(json!({
        "types": {
            "Address": {
                "description": "A postal address",
                "properties": {
                    "city": { "type": "string" },
                    "zip": { "type": "string", "optional": true }
                },
                "additionalProperties": true
            },
            "Shape": { "anyOf": ["Circle", "Square"], "discriminator": "kind" },
            "Circle": { "properties": { "kind": { "type": "string", "const": "circle" }, "r": { "type": "number" } } },
            "Square": { "properties": { "kind": { "type": "string", "const": "square" }, "side": { "type": "integer" } } }
        },
        "functionSchema": [{
            "name": "ship",
            "description": "Ships things",
            "parameters": {
                "to": { "type": "Address", "description": "Where to" },
                "shape": { "type": "Shape", "required": false },
                "tags": { "type": "string[]", "optional": true },
                "meta": { "type": "unknown", "optional": true },
                "mode": { "type": "string", "enum": ["fast", "slow"] }
            }
        }]
    }))
}

#[test]
fn format_names_parse_and_print() {
    for format in Format::ALL {
        assert_eq!(format.as_str().parse::<Format>().unwrap(), format);
        assert_eq!(serde_json::to_value(format).unwrap(), json!(format.as_str()));
    }
    assert!("yaml".parse::<Format>().is_err());
}

#[test]
fn json_schema_uses_defs_and_keeps_the_declared_shape() {
    let t = tool();
    let compiled = compile(t.functions(), t.types(), Format::JsonSchema).unwrap();
    assert!(compiled.report.is_empty(), "{:?}", compiled.report);
    let schema = &compiled.schema["ship"];
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], json!(["mode", "to"]));
    assert_eq!(
        schema["properties"]["to"],
        json!({ "$ref": "#/$defs/Address", "description": "Where to" })
    );
    assert_eq!(
        schema["properties"]["tags"],
        json!({ "type": "array", "items": { "type": "string" } })
    );
    assert_eq!(schema["properties"]["meta"], json!({}));
    assert_eq!(schema["$defs"]["Address"]["additionalProperties"], true);
    assert_eq!(schema["$defs"]["Address"]["description"], "A postal address");
    assert_eq!(
        schema["$defs"]["Shape"]["anyOf"],
        json!([{ "$ref": "#/$defs/Circle" }, { "$ref": "#/$defs/Square" }])
    );
    let validator = jsonschema::validator_for(schema).unwrap();
    let good = json!({ "to": { "city": "Oslo", "extra": 1 }, "mode": "fast", "shape": { "kind": "square", "side": 2 } });
    assert!(validator.is_valid(&good));
    assert_eq!(validate_arguments(t.function("ship"), t.types(), &good), vec![]);
}

#[test]
fn openai_strict_requires_everything_and_closes_objects() {
    let t = tool();
    let compiled = compile(t.functions(), t.types(), Format::Openai).unwrap();
    assert!(!compiled.is_blocked());
    let function = &compiled.schema[0]["function"];
    assert_eq!(compiled.schema[0]["type"], "function");
    assert_eq!(function["strict"], true);
    let parameters = &function["parameters"];
    assert_eq!(parameters["required"], json!(["meta", "mode", "shape", "tags", "to"]));
    assert_eq!(parameters["properties"]["tags"]["type"], json!(["array", "null"]));
    assert_eq!(parameters["properties"]["meta"]["type"], json!(["string", "null"]));
    assert_eq!(
        parameters["properties"]["shape"],
        json!({ "anyOf": [{ "$ref": "#/$defs/Shape" }, { "type": "null" }] })
    );
    let address = &parameters["$defs"]["Address"];
    assert_eq!(address["additionalProperties"], false);
    assert_eq!(address["required"], json!(["city", "zip"]));
    assert_eq!(address["properties"]["zip"]["type"], json!(["string", "null"]));
    assert_eq!(
        parameters["$defs"]["Circle"]["properties"]["kind"],
        json!({ "type": "string", "enum": ["circle"] })
    );
    let issues: Vec<(&str, &str)> =
        compiled.report.iter().map(|i| (i.path.as_str(), i.issue.as_str())).collect();
    for expected in [
        ("/types/Address", "OpenAI strict mode needs closed objects"),
        ("/types/Address/properties/zip", "OpenAI strict mode requires every property"),
        ("/functionSchema/0/parameters/meta", "OpenAI strict mode has no untyped values"),
        ("/types/Circle/properties/kind", "OpenAI strict mode has no `const`"),
    ] {
        assert!(issues.contains(&expected), "{expected:?} missing from {issues:?}");
    }
    let validator = jsonschema::validator_for(parameters).unwrap();
    assert!(validator.is_valid(&json!({
        "to": { "city": "Oslo", "zip": null }, "shape": null, "tags": null, "meta": "{\"a\":1}", "mode": "slow"
    })));
}

#[test]
fn anthropic_and_mcp_carry_the_json_schema() {
    let t = tool();
    let anthropic = compile(t.functions(), t.types(), Format::Anthropic).unwrap();
    assert_eq!(anthropic.schema[0]["name"], "ship");
    assert_eq!(anthropic.schema[0]["input_schema"]["type"], "object");
    assert!(anthropic.schema[0]["input_schema"].get("$schema").is_none());
    let mcp = compile(t.functions(), t.types(), Format::Mcp).unwrap();
    assert_eq!(mcp.schema[0]["inputSchema"], anthropic.schema[0]["input_schema"]);
    assert_eq!(mcp.schema[0]["description"], "Ships things");
}

#[test]
fn names_too_long_for_a_provider_are_blocking_in_its_report() {
    let name = "a".repeat(70);
    let t = Tool::parse(
        json!({ "functionSchema": [{ "name": name, "description": "d", "parameters": {} }] }),
    );
    for format in [Format::Anthropic, Format::Openai] {
        let compiled = compile(t.functions(), t.types(), format).unwrap();
        assert!(compiled.is_blocked(), "{format}");
        assert_eq!(compiled.report[0].path, "/functionSchema/0/name");
    }
    for format in [Format::JsonSchema, Format::Mcp, Format::Bedrock] {
        assert!(!compile(t.functions(), t.types(), format).unwrap().is_blocked(), "{format}");
    }
}

#[test]
fn bedrock_maps_enums_and_scalar_arrays_natively() {
    let t = tool();
    let compiled = compile(t.functions(), t.types(), Format::Bedrock).unwrap();
    let parameters = &compiled.schema["functions"][0]["parameters"];
    assert_eq!(
        parameters["mode"],
        json!({ "type": "string", "description": "One of: fast, slow.", "required": true })
    );
    assert_eq!(parameters["tags"]["type"], "array");
    assert_eq!(parameters["tags"]["required"], false);
    assert_eq!(parameters["shape"]["type"], "string");
    assert!(parameters["shape"]["description"].as_str().unwrap().contains("\"circle\""));
    assert_eq!(parameters["meta"]["type"], "string");
}

#[test]
fn a_type_too_large_for_bedrock_is_rejected_only_for_bedrock() {
    let mut properties = serde_json::Map::new();
    for i in 0..40 {
        properties.insert(format!("someRatherLongPropertyName{i}"), json!({ "type": "string" }));
    }
    let t = Tool::parse(json!({
        "types": { "Big": { "properties": properties } },
        "functionSchema": [{ "name": "f", "description": "d", "parameters": { "big": { "type": "Big" } } }]
    }));
    let errors = validate_tool_schema(t.functions(), t.types(), true);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].path, "/functionSchema/0/parameters/big");
    assert!(errors[0].message.contains("bedrock"));
    assert_eq!(validate_tool_schema(t.functions(), t.types(), false), vec![]);
    let compiled = compile(t.functions(), t.types(), Format::Bedrock).unwrap();
    assert!(compiled.is_blocked());
}

#[test]
fn bedrock_falls_back_to_a_compact_notation() {
    let t = Tool::parse(json!({
        "types": {
            "Address": { "properties": {
                "street": { "type": "string" }, "city": { "type": "string" },
                "country": { "type": "string" }, "postalCode": { "type": "string" }
            } },
            "Customer": { "properties": {
                "name": { "type": "string" }, "email": { "type": "string" },
                "shippingAddress": { "type": "Address" },
                "billingAddress": { "type": "Address", "optional": true },
                "previousAddresses": { "type": "Address[]", "optional": true }
            } }
        },
        "functionSchema": [{ "name": "f", "description": "d", "parameters": { "customer": { "type": "Customer" } } }]
    }));
    let compiled = compile(t.functions(), t.types(), Format::Bedrock).unwrap();
    assert!(!compiled.is_blocked(), "{:?}", compiled.report);
    let description =
        compiled.schema["functions"][0]["parameters"]["customer"]["description"].as_str().unwrap();
    assert_eq!(
        description,
        "JSON-encoded: a JSON text of the type {billingAddress?: Address, email: string, name: string, \
         previousAddresses?: Address[], shippingAddress: Address} where Address = {city: string, \
         country: string, postalCode: string, street: string}"
    );
}

#[test]
fn union_arguments_are_checked_against_the_chosen_variant() {
    let t = tool();
    let function = t.function("ship");
    let check = |shape: serde_json::Value| {
        let args = json!({ "to": { "city": "x" }, "mode": "fast", "shape": shape });
        validate_arguments(function, t.types(), &args)
            .into_iter()
            .map(|e| (e.path, e.message))
            .collect::<Vec<_>>()
    };
    assert_eq!(check(json!({ "kind": "circle", "r": 1.5 })), vec![]);
    let errors = check(json!({ "kind": "circle", "side": 1 }));
    assert_eq!(
        errors.iter().map(|e| e.0.as_str()).collect::<Vec<_>>(),
        ["/shape/r", "/shape/side"]
    );
    let errors = check(json!({ "kind": "triangle" }));
    assert_eq!(
        errors,
        [("/shape/kind".to_string(), "must be one of \"circle\", \"square\"".to_string())]
    );
    let errors = check(json!({ "r": 1 }));
    assert_eq!(errors[0].0, "/shape/kind");
    let errors = check(json!("circle"));
    assert_eq!(errors[0], ("/shape".to_string(), "expected an object, found a string".to_string()));
}

#[test]
fn a_wide_dag_of_types_neither_hangs_nor_fits_bedrock() {
    let mut types = serde_json::Map::new();
    for k in 0..30 {
        let next = if k == 29 {
            json!({ "type": "string" })
        } else {
            json!({ "type": format!("L{}", k + 1) })
        };
        types.insert(format!("L{k}"), json!({ "properties": { "a": next, "b": next } }));
    }
    let t = Tool::parse(json!({
        "types": types,
        "functionSchema": [{ "name": "f", "description": "d", "parameters": { "root": { "type": "L0" } } }]
    }));
    let errors = validate_tool_schema(t.functions(), t.types(), true);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].path, "/functionSchema/0/parameters/root");
    for format in Format::ALL {
        compile(t.functions(), t.types(), format).unwrap();
    }
}
