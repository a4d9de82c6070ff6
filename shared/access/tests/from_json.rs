#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]
//! `PreparedContext::from_json` (borrowed parse) against the typed path it replaces
//! (`serde_json` into `RequestContext`, then `PreparedContext::new`): the same
//! decisions and per-rule results on every context, the same errors on every bad one.

use proptest::prelude::*;
use registry_access::{
    AccessRule, ContextJsonError, Effect, PreparedContext, RequestContext, RuleSet,
};
use serde_json::{Value, json};

/// Conditions touching every field, through flattened paths, macros and whole maps.
const CONDITIONS: &[&str] = &[
    "user.userId == 'u-1'",
    "user.userType == 'internal-user' && customData.tier == 'premium'",
    "'site-admin' in user.roles",
    "size(user.roles) > 1",
    "user.email.endsWith('@example.com')",
    "account.accountId in ['a-1', 'a-2']",
    "account.type == 'retailer' || account.organizationId == 'o-1'",
    "request.region.startsWith('us-')",
    "has(customData.flags) && customData.flags.exists(f, f == 'beta')",
    "customData.n == 3",
    "customData.n > 2.5",
    "customData.big == 18446744073709551615u",
    "customData.nested.a.b == 'deep'",
    "customData.exists(k, k == 'tier')",
    "'tier' in customData",
    "customData.list == [1, 'x', true]",
    "customData.nothing == null",
    "customData.flags.map(f, f + '!').exists(f, f == 'beta!')",
    "customData.filter(k, k.startsWith('t')).size() == 1",
    "size(request) >= 1",
    "request.time < timestamp('2100-01-01T00:00:00Z')",
    "request.toolId == 't@1' && request.agentId == 'a'",
    "has(request.toolId)",
    "customData.s.contains('é')",
];

fn rule_set() -> RuleSet {
    let rules: Vec<AccessRule> =
        CONDITIONS.iter().map(|c| AccessRule::new(Effect::Allow, Some(c))).collect();
    RuleSet::compile(&rules).unwrap()
}

/// What both paths give for `text`: per-rule results of a full `explain`, or the error.
fn both(set: &RuleSet, text: &[u8]) -> (String, String) {
    let fast = match PreparedContext::from_json(text) {
        Ok(p) => format!("{:?}", set.explain(&p)),
        Err(ContextJsonError::Json(e)) => format!("json: {e}"),
        Err(ContextJsonError::Limits(errors)) => format!("limits: {errors:?}"),
    };
    let typed = match serde_json::from_slice::<RequestContext>(text) {
        Err(e) => format!("json: {e}"),
        Ok(ctx) => match PreparedContext::new(&ctx) {
            Ok(p) => format!("{:?}", set.explain(&p)),
            Err(errors) => format!("limits: {errors:?}"),
        },
    };
    (fast, typed)
}

fn full() -> Value {
    json!({
        "user": {"userId": "u-1", "userType": "internal-user", "email": "dana@example.com",
                 "roles": ["site-admin", "analyst"]},
        "customData": {"tier": "premium", "flags": ["beta"], "n": 3, "big": 18446744073709551615u64,
                       "nested": {"a": {"b": "deep"}}, "list": [1, "x", true], "nothing": null,
                       "s": "caf\u{e9}"},
        "account": {"accountId": "a-1", "type": "retailer", "organizationId": "o-1"},
        "request": {"region": "us-west-2", "time": "2026-01-01T00:00:00Z", "agentId": "a", "toolId": "t@1"}
    })
}

#[test]
fn the_same_decisions_and_errors_as_the_typed_path() {
    let set = rule_set();
    let long = "x".repeat(5000);
    let many: Vec<u32> = (0..70).collect();
    let texts: Vec<String> = vec![
        full().to_string(),
        "{}".into(),
        r#"{"user": {"userId": null, "roles": null}, "customData": {}}"#.into(),
        // escapes: owned strings where the text cannot be borrowed
        r#"{"user": {"userId": "u-\u0031"}, "customData": {"ti\u0065r": "premium", "s": "caf\u00e9"}}"#.into(),
        // a repeated key keeps its last value
        r#"{"customData": {"n": 1, "n": 3}, "user": {"userId": "x"}}"#.into(),
        r#"{"customData": {"n": 1, "m": 2, "n": 3}}"#.into(),
        // at and just over each limit
        json!({"user": {"userId": "x".repeat(4096)}, "customData": {"k": "y".repeat(4096)}}).to_string(),
        json!({"user": {"userId": "x".repeat(4097)}}).to_string(),
        json!({"customData": {"k".repeat(4097): 1}}).to_string(),
        format!(r#"{{"customData": {{"k": "{}"}}}}"#, "\\u0041".repeat(4096)),
        format!(r#"{{"customData": {{"k": "{}"}}}}"#, "\\u0041".repeat(4097)),
        json!({"customData": {"a": [[[[[[[1]]]]]]]}}).to_string(),
        json!({"customData": {"a": [[[[[[[[1]]]]]]]]}}).to_string(),
        json!({"customData": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {}}}}}}}}}).to_string(),
        json!({"customData": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {}}}}}}}}}}).to_string(),
        json!({"user": {"roles": vec!["r"; 64]}, "customData": {"l": vec![1; 64]}}).to_string(),
        json!({"user": {"roles": vec!["r"; 65]}}).to_string(),
        json!({"customData": {"l": vec![1; 65]}}).to_string(),
        json!({"customData": (0..64).map(|i| (i.to_string(), json!(i))).collect::<serde_json::Map<_, _>>()}).to_string(),
        json!({"customData": (0..65).map(|i| (i.to_string(), json!(i))).collect::<serde_json::Map<_, _>>()}).to_string(),
        json!({"customData": {"a": vec![vec![1; 50]; 20], "b": vec![1; 3]}}).to_string(),
        json!({"customData": {"a": vec![vec![1; 50]; 20], "b": vec![1; 4]}}).to_string(),
        json!({"customData": {"a": vec![vec![1; 50]; 20], "b": vec![1; 5]}}).to_string(),
        // whitespace anywhere JSON allows it
        " \t\r\n{ \"user\" :\n{\"roles\" : [ \"site-admin\" , \"b\" ] } , \"customData\":{ } }\n ".into(),
        serde_json::to_string_pretty(&full()).unwrap(),
        // numbers: plain integers, and the ones serde_json reads for the reader
        r#"{"customData": {"n": 3, "a": -0, "b": 0, "c": -7, "d": 123456789012345678,
            "e": 1234567890123456789, "f": 12345678901234567890, "g": -9223372036854775808,
            "h": -9223372036854775809, "i": 1.5, "j": 2.5e3, "k": 1E-2, "l": 3.0, "m": -0.0}}"#.into(),
        r#"{"customData": {"n": 01}}"#.into(),
        r#"{"customData": {"n": 1.}}"#.into(),
        r#"{"customData": {"n": -}}"#.into(),
        r#"{"customData": {"n": +1}}"#.into(),
        r#"{"customData": {"n": 3x}}"#.into(),
        // escapes in keys and strings, bad escapes, raw control characters
        r#"{"custom\u0044ata": {"n": 3}}"#.into(),
        r#"{"customData": {"\u006e": 3, "s": "\ud83d\ude00 \"q\" \\ \/"}}"#.into(),
        r#"{"customData": {"s": "\ud83d"}}"#.into(),
        r#"{"customData": {"s": "\x"}}"#.into(),
        "{\"customData\": {\"s\": \"a\tb\"}}".into(),
        r#"{"customData": {"s": "a\"#.into(),
        // repeated or misplaced fields, wrong shapes
        r#"{"user": {}, "user": {}}"#.into(),
        r#"{"user": {"userId": "a", "userId": "b"}}"#.into(),
        r#"{"user": null}"#.into(),
        r#"{"customData": null, "user": {}}"#.into(),
        r#"{"request": {"time": null, "region": null}}"#.into(),
        r#"{"request": {"time": "2026-01-01T00:00:00+02:00"}}"#.into(),
        r#"{"request": {"time": "2026-01-01 00:00:00Z"}}"#.into(),
        r#"{"request": {"time": 5}}"#.into(),
        r#"{"account": {"type": "retailer", "accountId": "a-1"}, "request": {"agentId": "a", "toolId": "t@1"}}"#.into(),
        r#"{"user": {"roles": []}, "customData": {"l": [], "m": {}, "t": true, "f": false, "z": null}}"#.into(),
        r#"{"user": {"roles": "a"}}"#.into(),
        r#"{} x"#.into(),
        r#"{},"#.into(),
        r#"{"user": {},}"#.into(),
        r#"{"customData": {"l": [1,]}}"#.into(),
        r#"[]"#.into(),
        "".into(),
        r#"{"customData": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": {"j": {"k": 1}}}}}}}}}}}}"#.into(),
        format!(r#"{{"customData": {{"l": {}}}}}"#, "[".repeat(200) + &"]".repeat(200)),
        // refused: unknown fields, wrong types, bad time, not JSON
        r#"{"usr": {}}"#.into(),
        r#"{"user": {"userId": 5}}"#.into(),
        r#"{"user": {"roles": ["a", 1]}}"#.into(),
        r#"{"customData": null}"#.into(),
        r#"{"customData": []}"#.into(),
        r#"{"request": {"time": "yesterday"}}"#.into(),
        "{\"user\": ".into(),
        // over the limits: reported by the typed path, every violation
        json!({"user": {"userId": long, "roles": many.iter().map(|i| i.to_string()).collect::<Vec<_>>()},
               "customData": {"l": many, "deep": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": 1}}}}}}}}}})
        .to_string(),
    ];
    for text in &texts {
        let (fast, typed) = both(&set, text.as_bytes());
        assert_eq!(fast, typed, "{text}");
    }
    // the full context matches every rule on both paths
    let p = PreparedContext::from_json(texts[0].as_bytes()).unwrap();
    let (_, outcomes) = set.explain(&p);
    let failing: Vec<_> = outcomes
        .iter()
        .filter(|o| !matches!(o.result, registry_access::RuleResult::Matched))
        .map(|o| (CONDITIONS[o.rule_index], o.result.clone()))
        .collect();
    assert!(failing.is_empty(), "{failing:?}");
}

#[test]
fn a_borrowed_context_outlives_nothing_it_borrows_when_owned() {
    let set = rule_set();
    let owned = {
        let text = full().to_string();
        PreparedContext::from_json(text.as_bytes()).unwrap().into_owned()
    };
    assert!(set.evaluate(&owned).is_allowed());
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-z\u{e9}\"\\\\/]{0,6}".prop_map(Value::from),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
            prop::collection::btree_map("[a-z]{1,4}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn random_contexts_agree(
        custom in prop::collection::btree_map(
            prop_oneof![Just("tier".to_string()), Just("flags".to_string()), Just("n".to_string()), "[a-z]{1,5}".prop_map(String::from)],
            json_value(), 0..6),
        user_id in prop::option::of("[a-z0-9-]{0,5}"),
        roles in prop::option::of(prop::collection::vec(prop_oneof![Just("site-admin".to_string()), "[a-z]{0,4}".prop_map(String::from)], 0..4)),
        region in prop::option::of(prop_oneof![Just("us-west-2".to_string()), "[a-z-]{0,6}".prop_map(String::from)]),
    ) {
        let set = rule_set();
        let text = json!({
            "user": {"userId": user_id, "roles": roles},
            "customData": custom,
            "request": {"region": region, "time": "2026-01-01T00:00:00Z"},
        });
        for text in [text.to_string(), serde_json::to_string_pretty(&text).unwrap()] {
            let (fast, typed) = both(&set, text.as_bytes());
            prop_assert_eq!(fast, typed);
        }
    }
}

#[test]
fn interpreter_errors_name_types_never_values() {
    // `f + '!'` on a list of maps: the interpreter's own text prints the map in hash
    // order (a different text per run) and echoes context data; ours names the types.
    let set = rule_set();
    let text = r#"{"customData": {"flags": [[{"secret": "s3cr3t", "n": 1.5, "b": true}]]}}"#;
    let p = PreparedContext::from_json(text.as_bytes()).unwrap();
    let (_, outcomes) = set.explain(&p);
    let result = &outcomes[17].result;
    assert_eq!(
        result,
        &registry_access::RuleResult::Error(
            "unsupported binary operator 'add': list, string".to_owned()
        ),
    );
}
