//! The handler pipeline: typed extraction, error mapping, panics, attributes, size limit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use bedrock_action_group::{
    ActionGroupResponse, ArgumentError, Arguments, InvalidArguments, MAX_RESPONSE_BYTES,
    ResponseState, ToolError, handle, handle_event, parse_event,
};
use serde::Deserialize;
use serde_json::{Value, json};

fn event(params: Value) -> Value {
    json!({
        "messageVersion": "1.0",
        "agent": {"name": "a", "id": "b", "alias": "c", "version": "1"},
        "inputText": "hi",
        "sessionId": "s-1",
        "actionGroup": "shop",
        "function": "search",
        "parameters": params,
        "sessionAttributes": {},
        "promptSessionAttributes": {}
    })
}

fn p(name: &str, kind: &str, value: &str) -> Value {
    json!({"name": name, "type": kind, "value": value})
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Filters {
    min_price: f64,
    max_price: Option<f64>,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Search {
    query: String,
    limit: Option<u8>,
    exact: bool,
    tags: Vec<String>,
    filters: Option<Filters>,
}

fn search_event() -> Value {
    event(json!([
        p("query", "string", "red shoes"),
        p("limit", "integer", "5"),
        p("exact", "boolean", "False"),
        p("tags", "array", "[summer, sale]"),
        p("filters", "string", "{\"minPrice\": 10, \"maxPrice\": 99.5}"),
    ]))
}

fn extract<T: for<'de> Deserialize<'de>>(e: &Value) -> Result<T, InvalidArguments> {
    Arguments::from_event(&parse_event(e).unwrap())?.extract()
}

#[test]
fn typed_extraction_decodes_rich_parameters() {
    let s: Search = extract(&search_event()).unwrap();
    assert_eq!(
        s,
        Search {
            query: "red shoes".into(),
            limit: Some(5),
            exact: false,
            tags: vec!["summer".into(), "sale".into()],
            filters: Some(Filters { min_price: 10.0, max_price: Some(99.5) }),
        }
    );
}

#[test]
fn typed_extraction_errors_name_the_field() {
    // A valid search with `param` set: in place of the one so named, or added.
    let with = |param: Value| {
        let mut ps = vec![
            p("query", "string", "x"),
            p("exact", "boolean", "true"),
            p("tags", "array", "[]"),
        ];
        match ps.iter_mut().find(|q| q["name"] == param["name"]) {
            Some(q) => *q = param,
            None => ps.push(param),
        }
        Value::Array(ps)
    };
    let cases = [
        (json!([p("limit", "integer", "5")]), "/query", "is required"),
        (with(p("limit", "integer", "300")), "/limit", "invalid value: integer `300`, expected u8"),
        (with(p("query", "number", "5")), "/query", "invalid type: integer `5`, expected a string"),
        (
            with(p("filters", "string", "{\"minPrice\": \"cheap\"}")),
            "/filters/minPrice",
            "invalid type: string \"cheap\", expected f64",
        ),
        (with(p("filters", "string", "{\"maxPrice\": 3}")), "/filters/minPrice", "is required"),
        (
            with(p("filters", "string", "{minPrice: 3}")),
            "/filters",
            "expected JSON, got invalid JSON text (key must be a string at line 1 column 2)",
        ),
        (
            with(p("tags", "array", "[\"a\", [2]]")),
            "/tags/1",
            "invalid type: sequence, expected a string",
        ),
    ];
    for (params, pointer, message) in cases {
        let err = extract::<Search>(&event(params)).unwrap_err();
        assert_eq!(err.errors, vec![ArgumentError::at(pointer, message)], "{pointer}");
    }
}

#[test]
fn unknown_fields_are_named_when_denied() {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        a: String,
    }
    let err = extract::<Strict>(&event(json!([p("a", "string", "x"), p("b", "string", "y")])))
        .unwrap_err();
    assert_eq!(err.errors, vec![ArgumentError::at("/b", "is not known; expected `a`")]);
}

#[test]
fn conversion_errors_are_all_reported_in_one_reprompt() {
    let e = event(json!([
        p("query", "string", "x"),
        p("limit", "integer", "1.5"),
        p("exact", "boolean", "yes"),
        p("tags", "array", "summer"),
    ]));
    let r = handle(&e, |_: Search| -> Result<String, ToolError> { panic!("must not run") });
    assert_eq!(r.state(), Some(ResponseState::Reprompt));
    assert_eq!(
        r.body(),
        "Invalid arguments. Fix the parameters `limit`, `exact`, `tags` and call the function again:\n\
         - /limit: expected an integer, got \"1.5\"\n\
         - /exact: expected true or false, got \"yes\"\n\
         - /tags: expected a JSON array or a [a, b] list, got \"summer\""
    );
}

#[test]
fn success_bodies_from_strings_and_serializable_values() {
    let r = handle(&search_event(), |_: Search| Ok::<_, ToolError>("plain \"text\""));
    assert_eq!((r.state(), r.body()), (None, "plain \"text\""));
    let r =
        handle(&search_event(), |s: Search| Ok::<_, ToolError>(json!({"hits": [s.query], "n": 1})));
    assert_eq!((r.state(), r.body()), (None, r#"{"hits":["red shoes"],"n":1}"#));
}

#[test]
fn error_mapping() {
    let run = |e: ToolError| handle(&search_event(), move |_: Search| Err::<(), _>(e));
    let r = run(ToolError::reply("no shoes in red"));
    assert_eq!((r.state(), r.body()), (None, "no shoes in red"));
    let r = run(ToolError::invalid("query", "must name a product"));
    assert_eq!(r.state(), Some(ResponseState::Reprompt));
    assert_eq!(
        r.body(),
        "Invalid arguments. Fix the parameter `query` and call the function again:\n- /query: must name a product"
    );
    let r = run(ToolError::failure("catalog unavailable"));
    assert_eq!((r.state(), r.body()), (Some(ResponseState::Failure), "catalog unavailable"));
    let from_validator: InvalidArguments =
        [("/filters/minPrice", "must be at least 0"), ("/tags/0", "unknown tag")]
            .into_iter()
            .collect();
    let r = run(from_validator.into());
    assert_eq!(
        r.body(),
        "Invalid arguments. Fix the parameters `filters`, `tags` and call the function again:\n\
         - /filters/minPrice: must be at least 0\n- /tags/0: unknown tag"
    );
}

#[test]
fn question_mark_turns_any_error_into_failure() {
    let r =
        handle(&search_event(), |_: Search| -> Result<u32, ToolError> { Ok("x1".parse::<u32>()?) });
    assert_eq!(
        (r.state(), r.body()),
        (Some(ResponseState::Failure), "invalid digit found in string")
    );
}

#[test]
fn panics_in_the_handler_become_failure() {
    let r = handle(&search_event(), |_: Search| -> Result<(), ToolError> {
        panic!("index out of bounds")
    });
    assert_eq!(r.state(), Some(ResponseState::Failure));
    assert_eq!(r.body(), "the tool handler panicked: index out of bounds");
    assert_eq!(r.action_group(), "shop");
    let n = 7;
    let r =
        handle(&search_event(), |_: Search| -> Result<(), ToolError> { panic!("formatted {n}") });
    assert_eq!(r.body(), "the tool handler panicked: formatted 7");
}

#[test]
fn session_attributes_are_carried_over_and_empty_maps_omitted() {
    let mut e = search_event();
    let r = handle(&e, |_: Search| Ok::<_, ToolError>(1));
    let v = serde_json::to_value(&r).unwrap();
    assert!(v.get("sessionAttributes").is_none() && v.get("promptSessionAttributes").is_none());
    assert!(v.get("knowledgeBasesConfiguration").is_none());
    assert!(v["response"]["functionResponse"].get("responseState").is_none());
    e["sessionAttributes"] = json!({"cart": "3"});
    let r = handle_event(&e, |ev, _| Ok::<_, ToolError>(ev.session_attributes().len()));
    assert_eq!(r.session_attributes, BTreeMap::from([("cart".to_string(), "3".to_string())]));
    let ev = parse_event(&e).unwrap();
    let r =
        ev.respond().session_attribute("seen", "yes").prompt_session_attribute("tz", "UTC").build();
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["sessionAttributes"], json!({"cart": "3", "seen": "yes"}));
    assert_eq!(v["promptSessionAttributes"], json!({"tz": "UTC"}));
}

fn size(r: &ActionGroupResponse) -> usize {
    serde_json::to_vec(r).unwrap().len()
}

#[test]
fn oversized_bodies_are_truncated_with_a_marker() {
    let ev = parse_event(&search_event()).unwrap();
    let limit = 300;
    let r = ev.respond().text("ab\"\n\u{1}é".repeat(100)).max_bytes(limit).build();
    assert!(size(&r) <= limit, "{}", size(&r));
    assert!(size(&r) > limit - 8, "cut too early: {}", size(&r));
    assert!(r.body().ends_with("\n[truncated: the response exceeded the 300-byte limit]"));
    assert!(r.body().starts_with("ab\"\n\u{1}é"));
    let small = ev.respond().text("short").max_bytes(limit).build();
    assert_eq!(small.body(), "short");
}

#[test]
fn default_limit_is_six_mebibytes() {
    assert_eq!(MAX_RESPONSE_BYTES, 6_291_456);
    let ev = parse_event(&search_event()).unwrap();
    let r = ev.respond().text("x".repeat(7_000_000)).build();
    assert!(size(&r) <= MAX_RESPONSE_BYTES && size(&r) > MAX_RESPONSE_BYTES - 100);
    assert_eq!(r.state(), None);
}

#[test]
fn attributes_too_large_for_the_limit_become_failure() {
    let mut e = search_event();
    e["sessionAttributes"] = json!({"big": "y".repeat(1000)});
    let ev = parse_event(&e).unwrap();
    let r = ev.respond().text("body").max_bytes(400).build();
    assert_eq!(r.state(), Some(ResponseState::Failure));
    assert!(r.session_attributes.is_empty());
    assert!(r.body().contains("exceeded the 400-byte limit even without its body"));
    assert!(size(&r) <= 400);
}

#[test]
fn api_form_maps_states_to_status_codes() {
    let e = json!({
        "messageVersion": "1.0", "actionGroup": "shop", "apiPath": "/search", "httpMethod": "GET",
        "parameters": [p("query", "string", "x"), p("exact", "boolean", "maybe")]
    });
    let r = handle(&e, |_: Search| Ok::<_, ToolError>(1));
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["response"]["httpStatusCode"], 400);
    assert_eq!(v["response"]["apiPath"], "/search");
    let e = json!({"actionGroup": "shop", "apiPath": "/search", "httpMethod": "GET"});
    let r = handle(&e, |_: Value| Err::<(), _>(ToolError::failure("down")));
    assert_eq!(serde_json::to_value(&r).unwrap()["response"]["httpStatusCode"], 500);
    let r = handle(&e, |_: Value| Ok::<_, ToolError>("fine"));
    assert_eq!(serde_json::to_value(&r).unwrap()["response"]["httpStatusCode"], 200);
}

#[test]
fn repeated_parameters_must_agree() {
    let e = event(json!([p("a", "string", "1"), p("a", "string", "1")]));
    assert_eq!(handle(&e, |v: Value| Ok::<_, ToolError>(v)).body(), r#"{"a":"1"}"#);
    let e = event(json!([p("a", "string", "1"), p("a", "string", "2")]));
    let r = handle(&e, |v: Value| Ok::<_, ToolError>(v));
    assert!(
        r.body().ends_with("- /a: is given more than once with different values"),
        "{}",
        r.body()
    );
}

#[test]
fn decode_json_for_schema_validators() {
    let mut args = Arguments::from_event(&parse_event(&search_event()).unwrap()).unwrap();
    args.decode_json(["filters", "absent"]).unwrap();
    assert_eq!(args.get("filters"), Some(&json!({"minPrice": 10, "maxPrice": 99.5})));
    let mut bad =
        Arguments::from_event(&parse_event(&event(json!([p("f", "string", "{oops")]))).unwrap())
            .unwrap();
    let err = bad.decode_json(["f"]).unwrap_err();
    assert_eq!(err.errors[0].pointer, "/f");
    assert!(
        err.errors[0].message.starts_with("expected JSON, got \"{oops\" ("),
        "{}",
        err.errors[0].message
    );
}
