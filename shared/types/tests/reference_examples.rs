//! Every example type of the type-language reference page is accepted and compiles to
//! every format: in this project's JSON form, and pasted as written (the seed form, YAML).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Tool;
use registry_types::{Format, compile, validate_tool_schema};
use serde_json::{Value, json};

fn examples() -> Vec<Value> {
    serde_json::from_str(include_str!("fixtures/reference_examples.json")).unwrap()
}

/// The example as a tool; examples without functions get one function per five types,
/// each type used as a parameter, so that every type is compiled.
fn tool(example: &Value) -> Tool {
    let mut value = example.clone();
    if value.get("functionSchema").is_none() {
        let names: Vec<&String> = value["types"].as_object().unwrap().keys().collect();
        let functions = functions_using(&names);
        value["functionSchema"] = Value::Array(functions);
    }
    Tool::parse(value)
}

/// One function per five of `names`, each name used as the type of one parameter.
fn functions_using(names: &[&String]) -> Vec<Value> {
    names
        .chunks(5)
        .enumerate()
        .map(|(index, chunk)| {
            let parameters: serde_json::Map<String, Value> = chunk
                .iter()
                .map(|name| (format!("p{name}"), json!({ "type": name, "description": format!("A {name}") })))
                .collect();
            json!({ "name": format!("use_types_{index}"), "description": "Takes example types", "parameters": parameters })
        })
        .collect()
}

#[test]
fn every_reference_example_is_accepted_for_bedrock() {
    for example in examples() {
        let tool = tool(&example);
        let errors = validate_tool_schema(tool.functions(), tool.types(), true);
        assert!(errors.is_empty(), "{}: {errors:?}", example["example"]);
    }
}

#[test]
fn every_reference_example_compiles_to_every_format() {
    for example in examples() {
        let tool = tool(&example);
        for format in Format::ALL {
            let compiled = compile(tool.functions(), tool.types(), format)
                .unwrap_or_else(|e| panic!("{} {format}: {e:?}", example["example"]));
            assert!(
                !compiled.is_blocked(),
                "{} {format}: {:?}",
                example["example"],
                compiled.report
            );
            let count = tool.functions().unwrap().len();
            match format {
                Format::JsonSchema => assert_eq!(compiled.schema.as_object().unwrap().len(), count),
                Format::Bedrock => {
                    assert_eq!(compiled.schema["functions"].as_array().unwrap().len(), count)
                }
                _ => assert_eq!(compiled.schema.as_array().unwrap().len(), count),
            }
        }
    }
}

#[test]
fn compiled_json_schemas_are_valid_draft_2020_12() {
    for example in examples() {
        let tool = tool(&example);
        let compiled = compile(tool.functions(), tool.types(), Format::JsonSchema).unwrap();
        for (name, schema) in compiled.schema.as_object().unwrap() {
            assert_eq!(schema["$schema"], registry_types::DRAFT_2020_12);
            jsonschema::draft202012::meta::validate(schema)
                .unwrap_or_else(|e| panic!("{} {name}: {e}", example["example"]));
            jsonschema::validator_for(schema).unwrap();
        }
        for format in [Format::Openai, Format::Anthropic, Format::Mcp] {
            let compiled = compile(tool.functions(), tool.types(), format).unwrap();
            for entry in compiled.schema.as_array().unwrap() {
                let schema = match format {
                    Format::Openai => &entry["function"]["parameters"],
                    Format::Anthropic => &entry["input_schema"],
                    _ => &entry["inputSchema"],
                };
                assert_eq!(schema["type"], "object", "{format}");
                jsonschema::draft202012::meta::validate(schema).unwrap();
            }
        }
    }
}

#[test]
fn the_union_with_a_property_named_type_compiles_to_an_any_of() {
    let example = examples().into_iter().find(|e| e["types"].get("UserAction").is_some()).unwrap();
    let tool = tool(&example);
    let compiled = compile(tool.functions(), tool.types(), Format::JsonSchema).unwrap();
    let schema = compiled
        .schema
        .as_object()
        .unwrap()
        .values()
        .find(|s| s["$defs"].get("UserAction").is_some())
        .unwrap();
    assert_eq!(
        schema["$defs"]["UserAction"]["anyOf"],
        json!([
            { "$ref": "#/$defs/ClickAction" },
            { "$ref": "#/$defs/ScrollAction" },
            { "$ref": "#/$defs/SubmitAction" }
        ])
    );
    assert_eq!(
        schema["$defs"]["ClickAction"]["properties"]["type"],
        json!({ "type": "string", "const": "click" })
    );
    // The union itself, whichever function's schema carries it.
    let union = json!({ "$defs": schema["$defs"], "$ref": "#/$defs/UserAction" });
    let validator = jsonschema::validator_for(&union).unwrap();
    assert!(validator.is_valid(&json!({ "type": "scroll", "position": 3 })));
    assert!(validator.is_valid(&json!({ "type": "click", "elementId": "e" })));
    assert!(!validator.is_valid(&json!({ "type": "scroll", "elementId": "e" })));
}

/// The page's YAML examples, as written: each block's own types, with the types of the
/// other blocks there for the names it borrows (`TopPicks` uses the first block's
/// `Product`), and the few the page uses but never shows (`ProductSummary`,
/// `ContentResponse`, ...) from the JSON fixture. Each block's types are the parameters
/// of the functions.
fn pasted_examples() -> Vec<(usize, Value)> {
    use serde::Deserialize;
    let text = include_str!("fixtures/reference_page.yaml");
    let blocks: Vec<Value> = serde_yaml_ng::Deserializer::from_str(text)
        .map(|doc| Value::deserialize(doc).unwrap())
        .collect();
    assert_eq!(blocks.len(), 16, "the page has 16 `types:` examples");
    let mut library = serde_json::Map::new();
    for block in &blocks {
        for (name, def) in block["types"].as_object().unwrap() {
            library.entry(name.clone()).or_insert(def.clone());
        }
    }
    for example in examples() {
        for (name, def) in example["types"].as_object().into_iter().flatten() {
            library.entry(name.clone()).or_insert(def.clone());
        }
    }
    blocks
        .iter()
        .enumerate()
        .map(|(index, block)| {
            let own = block["types"].as_object().unwrap();
            let mut types = library.clone();
            types.extend(own.clone());
            let names: Vec<&String> = own.keys().collect();
            let functions = functions_using(&names);
            (index + 1, json!({ "types": types, "functionSchema": functions }))
        })
        .collect()
}

#[test]
fn every_example_pasted_as_written_is_accepted_and_compiles() {
    for (block, example) in pasted_examples() {
        let tool = Tool::parse(example);
        let errors = validate_tool_schema(tool.functions(), tool.types(), true);
        assert!(errors.is_empty(), "block {block}: {errors:?}");
        for format in Format::ALL {
            let compiled = compile(tool.functions(), tool.types(), format)
                .unwrap_or_else(|e| panic!("block {block} {format}: {e:?}"));
            assert!(!compiled.is_blocked(), "block {block} {format}: {:?}", compiled.report);
        }
    }
}

#[test]
fn pasted_and_wrapped_forms_are_the_same_types() {
    let pasted = pasted_examples();
    let (_, cart) = &pasted[5]; // CartItem + CartItemList
    let seed = Tool::parse(cart.clone());
    let types = seed.types().unwrap();
    let wrapped: registry_types::TypeDefinition = serde_json::from_value(json!({
        "properties": {
            "productId": {"type": "string", "description": "Product ID to add to cart"},
            "quantity": {"type": "integer", "description": "Number of items (1-10)"}
        }
    }))
    .unwrap();
    assert_eq!(types["CartItem"], wrapped);
    assert_eq!(types["CartItemList"].items.as_ref().unwrap().ty, "CartItem");
    // stored and returned in the canonical (wrapped) form
    assert!(serde_json::to_value(&types["CartItem"]).unwrap().get("properties").is_some());
}
