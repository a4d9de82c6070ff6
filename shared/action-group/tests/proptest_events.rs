//! Property tests: arbitrary JSON events and arbitrary parameter strings never panic and
//! always give a well-formed response.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bedrock_action_group::convert::convert;
use bedrock_action_group::{
    ActionGroupResponse, MAX_RESPONSE_BYTES, ResponseState, ToolError, handle, handle_json,
    unreadable_response,
};
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Map, Value, json};

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        any::<String>().prop_map(Value::String),
        prop::sample::select(vec!["actionGroup", "function", "apiPath", "string", "[a, b]", "{}"])
            .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "messageVersion",
            "agent",
            "inputText",
            "sessionId",
            "actionGroup",
            "function",
            "apiPath",
            "httpMethod",
            "parameters",
            "requestBody",
            "content",
            "properties",
            "sessionAttributes",
            "promptSessionAttributes",
            "name",
            "type",
            "value",
        ])
        .prop_map(str::to_string),
        any::<String>(),
    ]
}

/// A structurally valid event whose fields are each possibly replaced by arbitrary JSON.
fn arb_event() -> impl Strategy<Value = Value> {
    let fields = prop::collection::vec((key(), arb_json()), 0..4);
    (any::<bool>(), arb_params(), fields).prop_map(|(api, params, fields)| {
        let mut e = json!({
            "messageVersion": "1.0",
            "agent": {"name": "n", "id": "i", "alias": "a", "version": "1"},
            "inputText": "t", "sessionId": "s", "actionGroup": "g",
            "parameters": params,
            "sessionAttributes": {"k": "v"}, "promptSessionAttributes": {}
        });
        if api {
            e["apiPath"] = json!("/p");
            e["httpMethod"] = json!("POST");
        } else {
            e["function"] = json!("f");
        }
        for (k, v) in fields {
            e[k] = v;
        }
        e
    })
}

fn arb_params() -> impl Strategy<Value = Value> {
    let name = prop::sample::select(vec!["n", "i", "b", "list", "rich", "s", "x"]);
    let kind = prop_oneof![
        prop::sample::select(vec!["string", "number", "integer", "boolean", "array", "object"])
            .prop_map(str::to_string),
        any::<String>(),
    ];
    let value = prop_oneof![
        any::<String>(),
        "[\\[\\]{}\",' a-z0-9.eE+-]{0,20}",
        prop::sample::select(vec![
            "12",
            "-1.5",
            "1e400",
            "NaN",
            "TRUE",
            "[a, b]",
            "[1, 2]",
            "{\"min\": 1}",
            "[",
            "]"
        ])
        .prop_map(str::to_string),
    ];
    prop::collection::vec((name, kind, value), 0..7).prop_map(|ps| {
        Value::Array(
            ps.into_iter().map(|(n, k, v)| json!({"name": n, "type": k, "value": v})).collect(),
        )
    })
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Rich {
    min: Option<i32>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Typed {
    n: Option<f64>,
    i: Option<u16>,
    b: Option<bool>,
    list: Option<Vec<String>>,
    rich: Option<Rich>,
    s: Option<String>,
}

fn assert_well_formed(r: &ActionGroupResponse) {
    let text = serde_json::to_string(r).unwrap();
    assert!(text.len() <= MAX_RESPONSE_BYTES);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert!(v["messageVersion"].is_string());
    let resp = &v["response"];
    // Echoed names are always there, as strings (`""` when the event has none).
    let echoed = |k: &str| resp.get(k).is_some_and(Value::is_string);
    assert!(echoed("actionGroup"));
    let body = if resp.get("functionResponse").is_some() {
        assert!(echoed("function"));
        let state = &resp["functionResponse"]["responseState"];
        assert!(state.is_null() || *state == "FAILURE" || *state == "REPROMPT");
        &resp["functionResponse"]["responseBody"]
    } else {
        assert!(resp["apiPath"].is_string() && echoed("httpMethod"));
        assert!(resp["httpStatusCode"].is_u64());
        &resp["responseBody"]
    };
    let body = body.as_object().unwrap();
    assert_eq!(body.len(), 1);
    assert!(body.values().all(|b| b["body"].is_string()));
    let back: ActionGroupResponse = serde_json::from_value(v).unwrap();
    assert_eq!(&back, r);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_json_never_panics(event in arb_json()) {
        let r = handle(&event, |v: Value| Ok::<_, ToolError>(v));
        assert_well_formed(&r);
        assert_well_formed(&handle(&event, |t: Typed| Ok::<_, ToolError>(format!("{t:?}"))));
    }

    #[test]
    fn perturbed_events_never_panic(event in arb_event()) {
        assert_well_formed(&handle(&event, |v: Value| Ok::<_, ToolError>(v)));
        assert_well_formed(&handle(&event, |t: Typed| Ok::<_, ToolError>(format!("{t:?}"))));
    }

    #[test]
    fn arbitrary_parameters_give_success_or_reprompt(params in arb_params(), api in any::<bool>()) {
        let mut e = json!({"actionGroup": "g", "parameters": params});
        if api { e["apiPath"] = json!("/p"); e["httpMethod"] = json!("GET"); } else { e["function"] = json!("f"); }
        for r in [
            handle(&e, |v: Value| Ok::<_, ToolError>(v)),
            handle(&e, |t: Typed| Ok::<_, ToolError>(format!("{t:?}"))),
        ] {
            assert_well_formed(&r);
            match r.state() {
                None => {}
                Some(ResponseState::Reprompt) => prop_assert!(r.body().starts_with("Invalid arguments"), "{}", r.body()),
                Some(ResponseState::Failure) => prop_assert!(false, "unexpected failure: {}", r.body()),
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let r = handle_json(&text, |v: Value| Ok::<_, ToolError>(v));
        assert_well_formed(&r);
        // Text is read once, as a `Value` parse reads it (see tests/one_parse.rs).
        let via_value = match serde_json::from_str::<Value>(&text) {
            Ok(v) => handle(&v, |v: Value| Ok::<_, ToolError>(v)),
            Err(e) => unreadable_response(&e),
        };
        prop_assert_eq!(r, via_value);
    }

    #[test]
    fn event_text_reads_as_its_value(event in prop_oneof![arb_event(), arb_json()], pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&event) } else { serde_json::to_string(&event) }.unwrap();
        let f = |t: Typed| Ok::<_, ToolError>(format!("{t:?}"));
        prop_assert_eq!(handle_json(&text, f), handle(&event, f));
        prop_assert_eq!(handle_json(&text, |v: Value| Ok::<_, ToolError>(v)), handle(&event, |v: Value| Ok::<_, ToolError>(v)));
    }

    #[test]
    fn converted_numbers_are_finite_and_integers_integral(kind in prop::sample::select(vec!["number", "integer"]), value in any::<String>()) {
        if let Ok(v) = convert("p", kind, &value) {
            let n = v.as_number().unwrap();
            if kind == "integer" { prop_assert!(n.is_i64() || n.is_u64()); }
            prop_assert!(n.as_f64().unwrap().is_finite());
        }
    }
}

proptest! {
    // Few cases: each caught panic still prints through the default panic hook.
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn handler_panics_are_always_caught(event in arb_event()) {
        let r = handle(&event, |_: Value| -> Result<(), ToolError> { panic!("boom") });
        assert_well_formed(&r);
        prop_assert!(r.state().is_some());
    }
}
