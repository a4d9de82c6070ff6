//! Malformed events produce a FAILURE response naming the problem, never a panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bedrock_action_group::{
    ActionGroupEvent, ResponseState, ToolError, handle, handle_json, parse_event,
};
use serde_json::{Value, json};

fn base() -> Value {
    json!({
        "messageVersion": "1.0",
        "actionGroup": "shop",
        "function": "search",
        "parameters": [{"name": "q", "type": "string", "value": "x"}]
    })
}

fn with(key: &str, value: Value) -> Value {
    let mut e = base();
    e[key] = value;
    e
}

fn without(key: &str) -> Value {
    let mut e = base();
    e.as_object_mut().unwrap().remove(key);
    e
}

fn echo(args: Value) -> Result<Value, ToolError> {
    Ok(args)
}

#[test]
fn each_problem_is_named() {
    let api = |extra: Value| {
        let mut e = json!({"actionGroup": "shop", "apiPath": "/search", "httpMethod": "GET"});
        for (k, v) in extra.as_object().unwrap() {
            e[k] = v.clone();
        }
        e
    };
    let cases = [
        (json!([]), "event: must be a JSON object, got array"),
        (json!("text"), "event: must be a JSON object, got string"),
        (Value::Null, "event: must be a JSON object, got null"),
        (without("actionGroup"), "/actionGroup: is required"),
        (with("actionGroup", json!(7)), "/actionGroup: must be a string, got number"),
        (with("function", json!(["f"])), "/function: must be a string, got array"),
        (
            without("function"),
            "event: has neither `function` (function details) nor `apiPath` (API schema)",
        ),
        (
            with("parameters", json!({"q": "x"})),
            "/parameters: must be a list of {name, type, value} objects, got object",
        ),
        (
            with("parameters", json!("[]")),
            "/parameters: must be a list of {name, type, value} objects, got string",
        ),
        (
            with("parameters", json!(["q"])),
            "/parameters/0: must be a {name, type, value} object, got string",
        ),
        (
            with("parameters", json!([{"type": "string", "value": "x"}])),
            "/parameters/0/name: is required",
        ),
        (
            with(
                "parameters",
                json!([{"name": "a", "type": "string", "value": "x"}, {"name": "n", "type": "number", "value": 5}]),
            ),
            "/parameters/1/value: must be a string, got number",
        ),
        (
            with("parameters", json!([{"name": "a", "type": "string"}])),
            "/parameters/0/value: is required",
        ),
        (
            with("parameters", json!([{"name": "a", "type": 1, "value": "x"}])),
            "/parameters/0/type: must be a string, got number",
        ),
        (
            with("sessionAttributes", json!({"k": 1})),
            "/sessionAttributes/k: must be a string, got number",
        ),
        (
            with("sessionAttributes", json!(["k"])),
            "/sessionAttributes: must be an object of strings, got array",
        ),
        (
            with("promptSessionAttributes", json!({"a/b": null})),
            "/promptSessionAttributes/a~1b: must be a string, got null",
        ),
        (with("agent", json!("bot")), "/agent: must be an object, got string"),
        (with("agent", json!({"name": false})), "/agent/name: must be a string, got boolean"),
        (with("messageVersion", json!(1.0)), "/messageVersion: must be a string, got number"),
        (api(json!({"httpMethod": null})), "/httpMethod: is required"),
        (api(json!({"requestBody": []})), "/requestBody: must be an object, got array"),
        (
            api(json!({"requestBody": {"content": "x"}})),
            "/requestBody/content: must be an object, got string",
        ),
        (
            api(json!({"requestBody": {"content": {"application/json": {"properties": {}}}}})),
            "/requestBody/content/application~1json/properties: must be a list of {name, type, value} objects, got object",
        ),
    ];
    for (event, problem) in cases {
        let r = handle(&event, echo);
        assert_eq!(r.state(), Some(ResponseState::Failure), "{problem}");
        assert_eq!(r.body(), format!("malformed action-group event: {problem}"));
    }
}

#[test]
fn failure_echoes_the_names_it_can_read() {
    let r = handle(&with("parameters", json!(3)), echo);
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["response"]["actionGroup"], "shop");
    assert_eq!(v["response"]["function"], "search");
    assert_eq!(v["response"]["functionResponse"]["responseState"], "FAILURE");
    let r = handle(
        &json!({"actionGroup": "shop", "apiPath": "/p", "httpMethod": "GET", "parameters": 1}),
        echo,
    );
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["response"]["apiPath"], "/p");
    assert_eq!(v["response"]["httpStatusCode"], 500);
}

/// The documented response format requires `actionGroup` (and `function`, or `apiPath`
/// and `httpMethod`): a name the event lacks, or has as a non-string, is `""`.
#[test]
fn failure_has_every_documented_member_empty_when_the_event_lacks_it() {
    let names = |event: &Value| {
        let v = serde_json::to_value(handle(event, echo)).unwrap();
        let r = &v["response"];
        assert_eq!(handle(event, echo).state(), Some(ResponseState::Failure), "{v}");
        [&r["actionGroup"], &r["function"], &r["apiPath"], &r["httpMethod"]].map(Value::clone)
    };
    let s = |t: &str| json!(t);
    assert_eq!(names(&without("actionGroup")), [s(""), s("search"), Value::Null, Value::Null]);
    assert_eq!(
        names(&with("actionGroup", json!(7))),
        [s(""), s("search"), Value::Null, Value::Null]
    );
    let bare = json!({"parameters": 3});
    assert_eq!(names(&bare), [s(""), s(""), Value::Null, Value::Null]);
    assert_eq!(names(&json!([])), [s(""), s(""), Value::Null, Value::Null]);
    let api = json!({"apiPath": "/p", "parameters": 1});
    assert_eq!(names(&api), [s(""), Value::Null, s("/p"), s("")]);
    let text = serde_json::to_value(handle_json("{\"actionGroup\": ", echo)).unwrap();
    assert_eq!(text["response"]["actionGroup"], "", "{text}");
    assert_eq!(text["response"]["function"], "", "{text}");
}

#[test]
fn failure_keeps_the_session_attributes() {
    let mut e = with("parameters", json!(3));
    e["sessionAttributes"] = json!({"cart": "42"});
    e["promptSessionAttributes"] = json!({"tz": "UTC"});
    let v = serde_json::to_value(handle(&e, echo)).unwrap();
    assert_eq!(v["response"]["functionResponse"]["responseState"], "FAILURE");
    assert_eq!(v["sessionAttributes"], json!({"cart": "42"}));
    assert_eq!(v["promptSessionAttributes"], json!({"tz": "UTC"}));
    // A malformed attribute map is itself the problem: nothing of it is echoed.
    let v =
        serde_json::to_value(handle(&with("sessionAttributes", json!({"k": 1})), echo)).unwrap();
    assert_eq!(v["response"]["functionResponse"]["responseState"], "FAILURE");
    assert!(v.get("sessionAttributes").is_none_or(|m| m == &json!({})), "{v}");
}

#[test]
fn lenient_defaults_for_optional_fields() {
    let r = handle(
        &json!({"actionGroup": "shop", "function": "search", "agent": null, "parameters": null}),
        echo,
    );
    assert_eq!((r.state(), r.body()), (None, "{}"));
    let r = handle(&with("extraFieldFromTheFuture", json!({"x": 1})), echo);
    assert_eq!((r.state(), r.body()), (None, r#"{"q":"x"}"#));
    let r = handle(&with("parameters", json!([{"name": "q", "value": "untyped"}])), echo);
    assert_eq!(r.body(), r#"{"q":"untyped"}"#);
}

#[test]
fn text_that_is_not_json_is_named() {
    let lone_surrogate = r#"{"actionGroup": "shop", "function": "f", "parameters": [{"name": "q", "type": "string", "value": "\ud800"}]}"#;
    for text in [lone_surrogate, "{\"actionGroup\": ", "", "nul"] {
        let r = handle_json(text, echo);
        assert_eq!(r.state(), Some(ResponseState::Failure), "{text}");
        assert!(
            r.body().starts_with("malformed action-group event: not valid JSON: "),
            "{}",
            r.body()
        );
        assert!(r.body().contains(" at line 1 column "), "{}", r.body());
    }
}

#[test]
fn odd_but_valid_values_pass_through() {
    let odd = "\u{0}\u{1b}[31m\u{feff}\u{fffd}\u{10ffff}\u{202e}";
    let r =
        handle(&with("parameters", json!([{"name": "q", "type": "string", "value": odd}])), echo);
    assert_eq!(r.state(), None);
    assert_eq!(serde_json::from_str::<Value>(r.body()).unwrap(), json!({"q": odd}));
}

#[test]
fn serde_reads_an_event_as_parse_event_does() {
    let err = serde_json::from_value::<ActionGroupEvent>(without("actionGroup")).unwrap_err();
    assert_eq!(err.to_string(), "malformed action-group event: /actionGroup: is required");
    let lenient = json!({"actionGroup": "g", "function": "f", "agent": null, "parameters": null});
    let read: ActionGroupEvent = serde_json::from_str(&lenient.to_string()).unwrap();
    assert_eq!(read, parse_event(&lenient).unwrap());
    assert_eq!(read.message_version(), "1.0");
}
