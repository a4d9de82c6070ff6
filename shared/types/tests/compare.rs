//! Breaking-change detection between two releases of a tool's interface.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Tool;
use registry_types::{ChangeKind, Interface, SchemaChange, compare, severity};
use serde_json::{Value, json};

fn diff(old: Value, new: Value) -> Vec<SchemaChange> {
    let (old, new) = (Tool::parse(old), Tool::parse(new));
    compare(
        Interface { functions: old.functions().unwrap(), types: old.types() },
        Interface { functions: new.functions().unwrap(), types: new.types() },
    )
}

fn weather(parameters: Value) -> Value {
    json!({ "functionSchema": [{ "name": "get_weather", "description": "Weather for a city", "parameters": parameters }] })
}

fn kinds(changes: &[SchemaChange]) -> Vec<(String, ChangeKind)> {
    changes.iter().map(|c| (c.path.clone(), c.kind)).collect()
}

#[test]
fn the_weather_releases() {
    let v1_0 = weather(json!({ "city": { "type": "string", "description": "City" } }));
    let v1_1 = weather(json!({
        "city": { "type": "string", "description": "City" },
        "units": { "type": "string", "enum": ["metric", "imperial"], "optional": true, "description": "Units" }
    }));
    let v2_0 = weather(json!({ "units": { "type": "string", "description": "Units" } }));
    assert!(diff(v1_0.clone(), v1_0.clone()).is_empty(), "no change, no finding");
    let additive = diff(v1_0.clone(), v1_1.clone());
    assert_eq!(
        kinds(&additive),
        [("/functionSchema/0/parameters/units".into(), ChangeKind::Additive)]
    );
    assert_eq!(severity(&additive), Some(ChangeKind::Additive));
    let breaking = diff(v1_1, v2_0);
    assert_eq!(severity(&breaking), Some(ChangeKind::Breaking));
    assert!(
        breaking.iter().any(|c| c.path == "/functionSchema/0/parameters/city"
            && c.kind == ChangeKind::Breaking
            && c.message.contains("removed")),
        "{breaking:?}"
    );
    assert!(
        breaking.iter().any(|c| c.path == "/functionSchema/0/parameters/units"
            && c.kind == ChangeKind::Breaking
            && c.message.contains("made required")),
        "{breaking:?}"
    );
}

#[test]
fn narrowing_is_breaking_and_widening_is_additive() {
    let p = |ty: &str, extra: Value| {
        let mut param = json!({ "type": ty, "description": "x" });
        param.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        weather(json!({ "q": param }))
    };
    let cases = [
        (p("integer", json!({})), p("number", json!({})), ChangeKind::Additive),
        (p("number", json!({})), p("integer", json!({})), ChangeKind::Breaking),
        (p("string", json!({})), p("string", json!({"enum": ["a"]})), ChangeKind::Breaking),
        (
            p("string", json!({"enum": ["a", "b"]})),
            p("string", json!({"enum": ["a"]})),
            ChangeKind::Breaking,
        ),
        (
            p("string", json!({"enum": ["a"]})),
            p("string", json!({"enum": ["a", "b"]})),
            ChangeKind::Additive,
        ),
        (p("string", json!({"enum": ["a"]})), p("string", json!({})), ChangeKind::Additive),
        (
            p("string", json!({"const": "a"})),
            p("string", json!({"const": "b"})),
            ChangeKind::Breaking,
        ),
        (p("string", json!({})), p("string[]", json!({})), ChangeKind::Breaking),
        (p("string", json!({"optional": true})), p("string", json!({})), ChangeKind::Breaking),
        (p("string", json!({})), p("string", json!({"optional": true})), ChangeKind::Additive),
    ];
    for (old, new, expected) in cases {
        let changes = diff(old.clone(), new.clone());
        assert_eq!(severity(&changes), Some(expected), "{old} -> {new}: {changes:?}");
    }
    let doc = diff(p("string", json!({})), p("string", json!({"description": "better"})));
    assert_eq!(
        kinds(&doc),
        [("/functionSchema/0/parameters/q/description".into(), ChangeKind::Documentation)]
    );
}

#[test]
fn named_types_are_compared_once_at_their_own_path() {
    let tool = |item: Value, variants: Value| {
        json!({
            "types": {
                "Item": { "properties": item },
                "A": { "properties": { "kind": { "type": "string", "const": "a" } } },
                "B": { "properties": { "kind": { "type": "string", "const": "b" } } },
                "Choice": { "anyOf": variants, "discriminator": "kind" }
            },
            "functionSchema": [
                { "name": "f", "description": "F", "parameters": {
                    "one": { "type": "Item", "description": "One" },
                    "many": { "type": "Item[]", "description": "Many" },
                    "choice": { "type": "Choice", "description": "Choice" }
                } }
            ]
        })
    };
    let old =
        tool(json!({ "id": { "type": "string" }, "n": { "type": "integer" } }), json!(["A", "B"]));
    let new = tool(json!({ "id": { "type": "string" } }), json!(["A", "B"]));
    assert_eq!(
        kinds(&diff(old.clone(), new)),
        [("/types/Item/properties/n".into(), ChangeKind::Breaking)]
    );
    let fewer_variants =
        tool(json!({ "id": { "type": "string" }, "n": { "type": "integer" } }), json!(["A"]));
    let changes = diff(old, fewer_variants);
    assert_eq!(
        kinds(&changes),
        [("/types/Choice/anyOf".into(), ChangeKind::Breaking)],
        "{changes:?}"
    );
}

#[test]
fn functions_added_and_removed() {
    let two = json!({ "functionSchema": [
        { "name": "a", "description": "A", "parameters": {} },
        { "name": "b", "description": "B", "parameters": {} }
    ] });
    let one = json!({ "functionSchema": [{ "name": "a", "description": "A", "parameters": {} }] });
    assert_eq!(
        kinds(&diff(two.clone(), one.clone())),
        [("/functionSchema/1".into(), ChangeKind::Breaking)]
    );
    assert_eq!(kinds(&diff(one, two)), [("/functionSchema/1".into(), ChangeKind::Additive)]);
}
