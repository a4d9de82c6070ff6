//! Every validation rule has a rejecting case, with the exact JSON Pointer it reports.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Tool;
use registry_types::validate_tool_schema;
use serde_json::{Value, json};

/// A tool with one function `f` taking `parameters`, and `types`.
fn with_params(parameters: Value, types: Value) -> Value {
    json!({ "functionSchema": [{ "name": "f", "description": "does f", "parameters": parameters }], "types": types })
}

fn param(p: Value) -> Value {
    with_params(json!({ "p": p }), json!({}))
}

fn types(types: Value) -> Value {
    with_params(json!({}), types)
}

fn object(properties: Value) -> Value {
    json!({ "properties": properties })
}

fn function(name: &str) -> Value {
    json!({ "name": name, "description": "d", "parameters": {} })
}

fn cases() -> Vec<(&'static str, Value, bool, &'static str)> {
    let string = json!({ "type": "string" });
    let variant = |tag: Value| object(json!({ "kind": { "type": "string", "const": tag } }));
    let mut chain = serde_json::Map::new();
    for i in 1..=33 {
        let next = if i == 33 {
            json!({ "type": "string" })
        } else {
            json!({ "type": format!("T{}", i + 1) })
        };
        chain.insert(format!("T{i}"), object(json!({ "next": next })));
    }
    vec![
        ("functionSchema required for bedrock", json!({}), true, "/functionSchema"),
        (
            "functionSchema non-empty for bedrock",
            json!({ "functionSchema": [] }),
            true,
            "/functionSchema",
        ),
        (
            "at most 11 functions",
            json!({ "functionSchema": (0..12).map(|i| function(&format!("f{i}"))).collect::<Vec<_>>() }),
            false,
            "/functionSchema",
        ),
        (
            "function name pattern",
            json!({ "functionSchema": [function("get weather")] }),
            false,
            "/functionSchema/0/name",
        ),
        (
            "unique function names",
            json!({ "functionSchema": [function("f"), function("f")] }),
            false,
            "/functionSchema/1/name",
        ),
        (
            "function description required",
            json!({ "functionSchema": [{ "name": "f", "parameters": {} }] }),
            false,
            "/functionSchema/0/description",
        ),
        (
            "function description at most 1200 characters",
            json!({ "functionSchema": [{ "name": "f", "description": "x".repeat(1201), "parameters": {} }] }),
            false,
            "/functionSchema/0/description",
        ),
        (
            "at most 5 parameters",
            with_params(
                json!({ "a": string, "b": string, "c": string, "d": string, "e": string, "g": string }),
                json!({}),
            ),
            false,
            "/functionSchema/0/parameters",
        ),
        (
            "parameter name pattern",
            with_params(json!({ "a__b": string }), json!({})),
            false,
            "/functionSchema/0/parameters/a__b",
        ),
        (
            "unknown field on a function",
            json!({ "functionSchema": [{ "name": "f", "description": "d", "paramters": {} }] }),
            false,
            "/functionSchema/0/paramters",
        ),
        (
            "unknown field on a parameter",
            param(json!({ "type": "string", "requried": true })),
            false,
            "/functionSchema/0/parameters/p/requried",
        ),
        (
            "unknown field on a type",
            types(json!({ "A": { "properties": {}, "desc": "x" } })),
            false,
            "/types/A/desc",
        ),
        (
            "unknown field on a property",
            types(json!({ "A": object(json!({ "x": { "type": "string", "optinal": true } })) })),
            false,
            "/types/A/properties/x/optinal",
        ),
        (
            "type required",
            param(json!({ "description": "no type" })),
            false,
            "/functionSchema/0/parameters/p/type",
        ),
        (
            "unknown scalar",
            param(json!({ "type": "str" })),
            false,
            "/functionSchema/0/parameters/p/type",
        ),
        (
            "reference exists",
            param(json!({ "type": "Address" })),
            false,
            "/functionSchema/0/parameters/p/type",
        ),
        (
            "reference exists through T[]",
            param(json!({ "type": "Address[]" })),
            false,
            "/functionSchema/0/parameters/p/type",
        ),
        (
            "union variant exists",
            types(
                json!({ "U": { "anyOf": ["A", "B"], "discriminator": "kind" }, "A": variant(json!("a")) }),
            ),
            false,
            "/types/U/anyOf/1",
        ),
        (
            "type: array has items",
            param(json!({ "type": "array" })),
            false,
            "/functionSchema/0/parameters/p/items",
        ),
        (
            "array type has items",
            types(json!({ "L": { "type": "array" } })),
            false,
            "/types/L/items",
        ),
        (
            // without `type: array`, `items` is a property (the seed form), so a misspelt
            // array type is an object type with a wrong `type`
            "array type says type: array",
            types(json!({ "L": { "type": "list", "items": { "type": "string" } } })),
            false,
            "/types/L/type",
        ),
        (
            "object has properties",
            param(json!({ "type": "object" })),
            false,
            "/functionSchema/0/parameters/p/properties",
        ),
        (
            "items only on arrays",
            param(json!({ "type": "string", "items": { "type": "string" } })),
            false,
            "/functionSchema/0/parameters/p/items",
        ),
        (
            "properties only on objects",
            param(json!({ "type": "string", "properties": {} })),
            false,
            "/functionSchema/0/parameters/p/properties",
        ),
        (
            "object[] not allowed",
            param(json!({ "type": "object[]", "properties": {} })),
            false,
            "/functionSchema/0/parameters/p/type",
        ),
        (
            "additionalProperties only on objects",
            param(json!({ "type": "string", "additionalProperties": true })),
            false,
            "/functionSchema/0/parameters/p/additionalProperties",
        ),
        (
            "enums are strings",
            param(json!({ "type": "string", "enum": ["a", 2] })),
            false,
            "/functionSchema/0/parameters/p/enum/1",
        ),
        (
            "enum only on strings",
            param(json!({ "type": "number", "enum": ["1"] })),
            false,
            "/functionSchema/0/parameters/p/enum",
        ),
        (
            "enum non-empty",
            param(json!({ "type": "string", "enum": [] })),
            false,
            "/functionSchema/0/parameters/p/enum",
        ),
        (
            "enum values unique",
            param(json!({ "type": "string", "enum": ["a", "a"] })),
            false,
            "/functionSchema/0/parameters/p/enum/1",
        ),
        (
            "const matches integer",
            param(json!({ "type": "integer", "const": 1.5 })),
            false,
            "/functionSchema/0/parameters/p/const",
        ),
        (
            "const matches string",
            param(json!({ "type": "string", "const": 1 })),
            false,
            "/functionSchema/0/parameters/p/const",
        ),
        (
            "const matches boolean",
            param(json!({ "type": "boolean", "const": "true" })),
            false,
            "/functionSchema/0/parameters/p/const",
        ),
        (
            "const among the enum",
            param(json!({ "type": "string", "enum": ["a"], "const": "b" })),
            false,
            "/functionSchema/0/parameters/p/const",
        ),
        (
            "const only on scalars",
            param(json!({ "type": "string[]", "const": ["a"] })),
            false,
            "/functionSchema/0/parameters/p/const",
        ),
        (
            "required and optional agree",
            param(json!({ "type": "string", "required": true, "optional": true })),
            false,
            "/functionSchema/0/parameters/p/optional",
        ),
        (
            "type names are PascalCase",
            types(json!({ "cartItem": object(json!({})) })),
            false,
            "/types/cartItem",
        ),
        (
            "type names are PascalCase (no underscore)",
            types(json!({ "Cart_Item": object(json!({})) })),
            false,
            "/types/Cart_Item",
        ),
        (
            "a type has a kind",
            types(json!({ "A": { "description": "nothing" } })),
            false,
            "/types/A",
        ),
        (
            "a type has one kind",
            types(json!({ "A": { "properties": {}, "anyOf": ["B", "C"], "discriminator": "k" } })),
            false,
            "/types/A",
        ),
        (
            "object type's type is object",
            types(json!({ "A": { "type": "string", "properties": {} } })),
            false,
            "/types/A/type",
        ),
        (
            "discriminator only on unions",
            types(json!({ "A": { "properties": {}, "discriminator": "k" } })),
            false,
            "/types/A/discriminator",
        ),
        (
            "union has at least 2 variants",
            types(
                json!({ "U": { "anyOf": ["A"], "discriminator": "kind" }, "A": variant(json!("a")) }),
            ),
            false,
            "/types/U/anyOf",
        ),
        (
            "union has a discriminator",
            types(
                json!({ "U": { "anyOf": ["A", "B"] }, "A": variant(json!("a")), "B": variant(json!("b")) }),
            ),
            false,
            "/types/U/discriminator",
        ),
        (
            "union has no type",
            types(
                json!({ "U": { "type": "object", "anyOf": ["A", "B"], "discriminator": "kind" }, "A": variant(json!("a")), "B": variant(json!("b")) }),
            ),
            false,
            "/types/U/type",
        ),
        (
            "union variants are object types",
            types(
                json!({ "U": { "anyOf": ["A", "L"], "discriminator": "kind" }, "A": variant(json!("a")), "L": { "type": "array", "items": { "type": "string" } } }),
            ),
            false,
            "/types/U/anyOf/1",
        ),
        (
            "union variants have the discriminator",
            types(
                json!({ "U": { "anyOf": ["A", "B"], "discriminator": "kind" }, "A": object(json!({ "x": { "type": "string" } })), "B": variant(json!("b")) }),
            ),
            false,
            "/types/U/anyOf/0",
        ),
        (
            "the discriminator has a const",
            types(
                json!({ "U": { "anyOf": ["A", "B"], "discriminator": "kind" }, "A": object(json!({ "kind": { "type": "string" } })), "B": variant(json!("b")) }),
            ),
            false,
            "/types/U/anyOf/0",
        ),
        (
            "the discriminator is required",
            types(
                json!({ "U": { "anyOf": ["A", "B"], "discriminator": "kind" }, "A": object(json!({ "kind": { "type": "string", "const": "a", "optional": true } })), "B": variant(json!("b")) }),
            ),
            false,
            "/types/U/anyOf/0",
        ),
        (
            "discriminator values are unique",
            types(
                json!({ "U": { "anyOf": ["A", "B", "C"], "discriminator": "kind" }, "A": variant(json!("a")), "B": variant(json!("b")), "C": variant(json!("a")) }),
            ),
            false,
            "/types/U/anyOf/2",
        ),
        (
            "no direct cycle",
            types(json!({ "A": object(json!({ "me": { "type": "A", "optional": true } })) })),
            false,
            "/types/A/properties/me/type",
        ),
        (
            "no cycle through T[]",
            types(json!({ "A": object(json!({ "children": { "type": "A[]" } })) })),
            false,
            "/types/A/properties/children/type",
        ),
        (
            "no indirect cycle",
            types(
                json!({ "A": object(json!({ "b": { "type": "B" } })), "B": { "type": "array", "items": { "type": "C" } }, "C": object(json!({ "a": { "type": "A" } })) }),
            ),
            false,
            "/types/C/properties/a/type",
        ),
        (
            "no cycle through a union",
            types(
                json!({ "U": { "anyOf": ["A", "B"], "discriminator": "kind" }, "A": object(json!({ "kind": { "type": "string", "const": "a" }, "u": { "type": "U" } })), "B": variant(json!("b")) }),
            ),
            false,
            "/types/U/anyOf/0",
        ),
        ("nesting depth", types(Value::Object(chain)), false, "/types/T1"),
        (
            "property names non-empty",
            types(json!({ "A": object(json!({ "": { "type": "string" } })) })),
            false,
            "/types/A/properties/",
        ),
        (
            "bedrock: a parameter description must fit 500 characters",
            param(json!({ "type": "string", "description": "x".repeat(501) })),
            true,
            "/functionSchema/0/parameters/p",
        ),
    ]
}

#[test]
fn every_rule_rejects_with_its_path() {
    for (rule, tool, bedrock, path) in cases() {
        let tool = Tool::parse(tool);
        let errors = validate_tool_schema(tool.functions(), tool.types(), bedrock);
        assert!(
            errors.iter().any(|e| e.path == path),
            "{rule}: expected an error at {path}, got {errors:?}"
        );
        assert!(errors.iter().all(|e| !e.message.is_empty()), "{rule}");
        assert!(errors.len() <= 2, "{rule}: one precise error expected, got {errors:?}");
    }
}

#[test]
fn bedrock_only_rules_do_not_apply_without_bedrock() {
    let tool = Tool::parse(param(json!({ "type": "string", "description": "x".repeat(501) })));
    assert_eq!(validate_tool_schema(tool.functions(), tool.types(), false), vec![]);
    assert_eq!(validate_tool_schema(None, None, false), vec![]);
}

#[test]
fn every_violation_is_reported_at_once() {
    let tool = Tool::parse(json!({
        "functionSchema": [{ "name": "bad name", "parameters": { "p": { "type": "Nope" }, "q": { "type": "array" } } }],
        "types": { "lower": { "properties": {} } }
    }));
    let errors = validate_tool_schema(tool.functions(), tool.types(), true);
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/functionSchema/0/name",
            "/functionSchema/0/description",
            "/functionSchema/0/parameters/p/type",
            "/functionSchema/0/parameters/q/items",
            "/types/lower"
        ]
    );
}

#[test]
fn pointer_tokens_are_escaped() {
    let tool = Tool::parse(types(json!({ "A": object(json!({ "a/b~c": { "type": "nope" } })) })));
    let errors = validate_tool_schema(tool.functions(), tool.types(), false);
    assert_eq!(errors[0].path, "/types/A/properties/a~1b~0c/type");
}
