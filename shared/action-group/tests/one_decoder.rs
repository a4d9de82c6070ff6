//! One strict decoder: the action-group pipeline (`Arguments::from_event_with_schema`)
//! and `registry_types::decode_bedrock_arguments` agree on every value, including the
//! cases where two decoders used to disagree (whitespace, unquoted arrays, integers past
//! 64 bits, unknown parameters).
#![cfg(feature = "schema")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bedrock_action_group::{Arguments, FunctionEvent, Parameter};
use registry_types::{FunctionDefinition, bedrock_functions, decode_bedrock_arguments};
use serde_json::{Value, json};

fn function() -> FunctionDefinition {
    serde_json::from_value(json!({
        "name": "f", "description": "F.",
        "parameters": {
            "n": {"type": "number", "description": "N", "required": false},
            "i": {"type": "integer", "description": "I", "required": false},
            "b": {"type": "boolean", "description": "B", "required": false},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags", "required": false},
            "s": {"type": "string", "description": "S", "required": false}
        }
    }))
    .unwrap()
}

/// Both decoders on one `(name, value)`: the value they produce, or `None` when they
/// refuse it. Panics when they disagree.
fn both(name: &str, value: &str) -> Option<Value> {
    let f = function();
    let exported = bedrock_functions(std::slice::from_ref(&f), None);
    let kind = exported[0]
        .parameters
        .get(name)
        .map(|p| serde_json::to_value(p.ty).unwrap().as_str().unwrap().to_owned())
        .unwrap_or_else(|| "string".into());
    let event = FunctionEvent {
        message_version: "1.0".into(),
        action_group: "g".into(),
        function: "f".into(),
        parameters: vec![Parameter::new(name, kind, value)],
        ..FunctionEvent::default()
    };
    let from_event =
        Arguments::from_event_with_schema(&event, &f, None).ok().map(|a| a.into_value());
    let from_types = decode_bedrock_arguments(&f, None, [(name, value)]).ok();
    assert_eq!(from_event, from_types, "{name} = {value:?}: the two entry points disagree");
    from_event.map(|args| args[name].clone())
}

#[test]
fn the_two_entry_points_agree_where_they_used_to_differ() {
    // Whitespace is not part of a number, an integer or a boolean.
    assert_eq!(both("n", " 12"), None);
    assert_eq!(both("i", "7 "), None);
    assert_eq!(both("b", " true"), None);
    assert_eq!(both("b", "TRUE"), Some(json!(true)));
    // Bedrock's unquoted list form, and JSON arrays.
    assert_eq!(both("tags", "[a, b]"), Some(json!(["a", "b"])));
    assert_eq!(both("tags", r#"["a","b"]"#), Some(json!(["a", "b"])));
    assert_eq!(both("tags", "[a,,b]"), None);
    // Integers past 64 bits: refused as integers, floats as numbers.
    assert_eq!(both("i", "18446744073709551616"), None);
    assert_eq!(both("i", "18446744073709551615"), Some(json!(18_446_744_073_709_551_615u64)));
    assert_eq!(both("n", "18446744073709551616"), Some(json!(18_446_744_073_709_551_616f64)));
    assert_eq!(both("n", "NaN"), None);
    assert_eq!(both("n", "2e3"), Some(json!(2000.0)));
    // A parameter the function does not declare.
    assert_eq!(both("zzz", "1"), None);
    // Strings stay as they are.
    assert_eq!(both("s", " padded "), Some(json!(" padded ")));
}
