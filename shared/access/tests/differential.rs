//! The registry's decision against the reference: the unmodified `cel` crate on the
//! condition's text and the JSON context (SPEC section 4). The reference shares nothing
//! with the registry but those two inputs: it parses the text with `cel::Program`,
//! binds the four variables with `cel::to_value` on the JSON, and reads the result as
//! the SPEC does (`true` matches, `false` does not, anything else is an error). The
//! registry compiles the same text as a rule (its write checks, its rewrites) and
//! evaluates it on a context prepared from the same JSON text, both ways a context
//! can be prepared (`PreparedContext::from_json` and `PreparedContext::new`).
//!
//! Generated conditions cover Unicode text (non-ASCII, combining marks, emoji), int
//! and uint extremes and overflow, doubles (NaN, -0.0, 1e308), mixed numeric
//! comparisons, missing fields and keys, errors inside `&&`, `||`, `!` and `? :`,
//! macros, `in`, string functions, indexing, conversions and timestamps.
//!
//! Cases: `CEL_DIFFERENTIAL_CASES` (default 20,000, what CI runs; the nightly
//! campaign in docs/rules.md runs 1,000,000). Every divergence ever found is kept in
//! [`REGRESSIONS`] and checked first.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
mod common;

use common::Outcome;
use registry_access::{PreparedContext, RequestContext};
use serde_json::{Value as Json, json};
use std::collections::HashMap;

/// Cases this test has found, kept as regressions: `(condition, context JSON)`.
const REGRESSIONS: &[(&str, &str)] = &[
    // a non-negative JSON integer is an `int` (`cel::to_value` would make it a `uint`)
    (
        "(0u == uint((0 + customData.n)))",
        r#"{"customData":{"n":0},"request":{"time":"2026-11-25T10:00:00Z"}}"#,
    ),
];

// ---- the reference: the `cel` crate alone --------------------------------------------

/// `json` as a `cel` value, numbers as the SPEC maps them: `int` when the number fits
/// `i64`, else `uint` when it fits `u64`, else `double`. (`cel::to_value` would make
/// every non-negative integer a `uint`.)
fn to_cel(json: &Json) -> cel::Value {
    match json {
        Json::Null => cel::Value::Null,
        Json::Bool(b) => cel::Value::Bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => cel::Value::Int(i),
            (None, Some(u), _) => cel::Value::UInt(u),
            (None, None, f) => cel::Value::Float(f.unwrap_or(f64::NAN)),
        },
        Json::String(s) => cel::Value::from(s.as_str()),
        Json::Array(items) => {
            cel::Value::List(std::sync::Arc::new(items.iter().map(to_cel).collect()))
        }
        Json::Object(fields) => cel::Value::from(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), to_cel(v)))
                .collect::<HashMap<String, cel::Value>>(),
        ),
    }
}

/// The reference's answer, or `None` when the `cel` crate cannot parse the text.
fn reference(condition: &str, context: &Json) -> Option<Outcome> {
    let mut ctx = cel::Context::default();
    for root in ["user", "customData", "account"] {
        ctx.add_variable_from_value(
            root,
            context.get(root).map_or_else(|| to_cel(&json!({})), to_cel),
        );
    }
    // `request.time` is a timestamp
    let mut request = HashMap::new();
    if let Some(Json::Object(fields)) = context.get("request") {
        for (key, value) in fields {
            let field = match (key.as_str(), value) {
                ("time", Json::String(text)) => {
                    cel::Value::Timestamp(chrono::DateTime::parse_from_rfc3339(text).ok()?)
                }
                _ => to_cel(value),
            };
            request.insert(key.clone(), field);
        }
    }
    ctx.add_variable_from_value("request", request);
    common::reference(condition, &ctx)
}

// ---- the registry --------------------------------------------------------------------

/// The registry's answer from both ways of preparing a context, or `None` when its write
/// checks refuse the condition.
fn registry(condition: &str, context: &Json) -> Result<Option<(Outcome, Outcome)>, String> {
    let text = context.to_string();
    let from_json = PreparedContext::from_json(text.as_bytes()).map_err(|e| format!("{e:?}"))?;
    let typed: RequestContext =
        serde_json::from_value(context.clone()).map_err(|e| e.to_string())?;
    let from_typed = PreparedContext::new(&typed).map_err(|e| format!("{e:?}"))?;
    Ok(common::registry(condition, &from_json).zip(common::registry(condition, &from_typed)))
}

/// Tallies of one run, to show the generator reaches every outcome.
#[derive(Debug, Default)]
struct Tally {
    matched: usize,
    not_matched: usize,
    error: usize,
    refused: usize,
}

/// Checks one case; `Err` describes a divergence.
fn check(condition: &str, context: &Json, tally: &mut Tally) -> Result<(), String> {
    let Some(expected) = reference(condition, context) else {
        // the `cel` parser refuses it: the registry must refuse it too
        return match registry(condition, context)? {
            None => {
                tally.refused += 1;
                Ok(())
            }
            Some(got) => Err(format!("cel cannot parse it, the registry evaluated it to {got:?}")),
        };
    };
    match registry(condition, context)? {
        None => tally.refused += 1,
        Some((from_json, from_typed)) => {
            if from_json != expected || from_typed != expected {
                return Err(format!(
                    "reference {expected:?}, registry {from_json:?} (from JSON) / {from_typed:?} (typed)"
                ));
            }
            match expected {
                Outcome::Matched => tally.matched += 1,
                Outcome::NotMatched => tally.not_matched += 1,
                Outcome::Error => tally.error += 1,
            }
        }
    }
    Ok(())
}

// ---- generators ----------------------------------------------------------------------

/// Text values: ASCII, Latin-1, a combining mark, emoji, the empty string.
const TEXTS: [&str; 10] = ["", "a", "abc", "é", "e\u{301}", "😀", "Straße", "ÿ", "İx", "a😀b"];

fn json_scalar() -> impl Strategy<Value = Json> {
    prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::from),
        prop::sample::select(vec![0i64, 1, -1, 2, 100, i64::MAX, i64::MIN, i64::MAX - 1])
            .prop_map(Json::from),
        prop::sample::select(vec![u64::MAX, 9_223_372_036_854_775_808]).prop_map(Json::from),
        prop::sample::select(vec![0.5f64, -0.0, 0.0, 1.0, -1.5, 1e308, -1e308, 1e-300, 2.0])
            .prop_map(Json::from),
        prop::sample::select(TEXTS.to_vec()).prop_map(Json::from),
    ]
}

fn json_value() -> impl Strategy<Value = Json> {
    json_scalar().prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
            prop::collection::btree_map(
                prop::sample::select(vec!["k", "a", "é", "n"]),
                inner,
                0..3
            )
            .prop_map(|m| Json::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

/// An optional string field of a typed root.
fn text_field() -> impl Strategy<Value = Option<Json>> {
    prop::option::of(prop::sample::select(TEXTS.to_vec()).prop_map(Json::from))
}

fn context() -> impl Strategy<Value = Json> {
    let user = (
        text_field(),
        text_field(),
        text_field(),
        prop::option::of(prop::collection::vec(
            prop::sample::select(vec!["admin", "refund-admin", "é", ""]),
            0..3,
        )),
    );
    let account = (text_field(), text_field(), text_field());
    let request = (
        text_field(),
        prop::sample::select(vec![
            "2026-11-25T10:00:00Z",
            "1970-01-01T00:00:00Z",
            "2026-11-25T10:00:00.5+05:30",
        ]),
        text_field(),
    );
    let typed = |key: &'static str, usual: BoxedStrategy<Json>| {
        prop::option::weighted(0.85, prop_oneof![4 => usual, 1 => json_value().boxed()])
            .prop_map(move |v| (key, v))
    };
    let scalars = |values: Vec<Json>| prop::sample::select(values).boxed();
    let custom = (
        typed(
            "n",
            scalars(vec![
                json!(0),
                json!(1),
                json!(-1),
                json!(7),
                json!(i64::MAX),
                json!(i64::MIN),
            ]),
        ),
        typed("u", scalars(vec![json!(u64::MAX), json!(9_223_372_036_854_775_808u64)])),
        typed("d", scalars(vec![json!(0.5), json!(-0.0), json!(1e308), json!(-1.5), json!(2.0)])),
        typed("s", prop::sample::select(TEXTS.to_vec()).prop_map(Json::from).boxed()),
        typed("l", prop::collection::vec(json_scalar(), 0..4).prop_map(Json::Array).boxed()),
        typed("m", json_value().boxed()),
        typed("b", any::<bool>().prop_map(Json::from).boxed()),
        typed("z", json_value().boxed()),
    )
        .prop_map(|(n, u, d, s, l, m, b, z)| {
            [n, u, d, s, l, m, b, z]
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| (k, v)))
                .collect::<Vec<_>>()
        });
    (user, account, request, custom).prop_map(|(u, a, r, c)| {
        let mut user = serde_json::Map::new();
        for (name, v) in [("userId", u.0), ("userType", u.1), ("email", u.2)] {
            if let Some(v) = v {
                user.insert(name.into(), v);
            }
        }
        if let Some(roles) = u.3 {
            user.insert("roles".into(), json!(roles));
        }
        let mut account = serde_json::Map::new();
        for (name, v) in [("accountId", a.0), ("type", a.1), ("organizationId", a.2)] {
            if let Some(v) = v {
                account.insert(name.into(), v);
            }
        }
        let mut request = serde_json::Map::new();
        if let Some(region) = r.0 {
            request.insert("region".into(), region);
        }
        request.insert("time".into(), json!(r.1));
        if let Some(agent) = r.2 {
            request.insert("agentId".into(), agent);
        }
        let custom: serde_json::Map<String, Json> =
            c.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        json!({"user": user, "account": account, "request": request, "customData": custom})
    })
}

/// A strategy picking one of `items`.
fn pick(items: &[&'static str]) -> BoxedStrategy<String> {
    prop::sample::select(items.to_vec()).prop_map(str::to_owned).boxed()
}

const INTS: &[&str] = &["0", "1", "-1", "2", "7", "9223372036854775807", "-9223372036854775808"];
const UINTS: &[&str] = &["0u", "1u", "2u", "18446744073709551615u", "9223372036854775808u"];
const DOUBLES: &[&str] = &["0.0", "-0.0", "1.0", "0.5", "-1.5", "1e308", "-1e308", "double('NaN')"];
const STRINGS: &[&str] = &[
    "''",
    "'a'",
    "'abc'",
    "'é'",
    "'e\\u0301'",
    "'e\u{301}'",
    "'😀'",
    "'Straße'",
    "'a😀b'",
    "'İx'",
];
const LISTS: &[&str] = &["[1, 2, 3]", "['a', 'é', '😀']", "[1, 1u, 1.0]", "[]", "[0.5, -0.0]"];
const MAPS: &[&str] = &["{'k': 1, 'a': 'é'}", "{}", "{1: 'x', 2u: 'y'}"];
const STRING_FIELDS: &[&str] = &[
    "user.userId",
    "user.userType",
    "user.email",
    "account.accountId",
    "account.type",
    "account.organizationId",
    "request.region",
    "request.agentId",
    "customData.s",
    "customData['s']",
    "customData.m.a",
];
const LIST_FIELDS: &[&str] = &["user.roles", "customData.l"];
const ANY_FIELDS: &[&str] = &[
    "customData.missing",
    "customData.m.k",
    "customData.l[0]",
    "customData.z",
    "user",
    "customData",
    "request",
    "customData.m",
];
const COMPARISONS: [&str; 6] = ["==", "!=", "<", "<=", ">", ">="];
const ARITHMETIC: [&str; 5] = ["+", "-", "*", "/", "%"];
const STRING_FUNCTIONS: [&str; 3] = ["contains", "startsWith", "endsWith"];
const PATTERNS: [&str; 5] = ["'^a'", "'é$'", "'^.$'", "'[0-9]+'", "'^\\\\w+$'"];
const HAS: &[&str] = &[
    "has(user.email)",
    "has(user.roles)",
    "has(customData.m)",
    "has(customData.m.k)",
    "has(request.region)",
    "has(customData.s.k)",
];

/// `(a op b)`.
fn binary(
    a: BoxedStrategy<String>,
    ops: &[&'static str],
    b: BoxedStrategy<String>,
) -> BoxedStrategy<String> {
    (a, prop::sample::select(ops.to_vec()), b)
        .prop_map(|(a, op, b)| format!("({a} {op} {b})"))
        .boxed()
}

// Expressions of one CEL type, to a depth; `anything` mixes in terms of any type, so
// that type errors also arise deep inside `&&`, `||`, `!` and `? :`.

fn int(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![pick(INTS), Just("customData.n".to_owned())].boxed();
    if depth == 0 {
        return leaf;
    }
    let d = depth - 1;
    prop_oneof![
        2 => leaf,
        2 => binary(int(d), &ARITHMETIC, int(d)),
        1 => int(d).prop_map(|a| format!("-{a}")),
        1 => string(d).prop_map(|a| format!("size({a})")),
        1 => list(d).prop_map(|a| format!("{a}.size()")),
        1 => prop_oneof![double(d), uint(d), string(d)].prop_map(|a| format!("int({a})")),
    ]
    .boxed()
}

fn uint(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![pick(UINTS), Just("customData.u".to_owned())].boxed();
    if depth == 0 {
        return leaf;
    }
    let d = depth - 1;
    prop_oneof![
        2 => leaf,
        2 => binary(uint(d), &ARITHMETIC, uint(d)),
        1 => prop_oneof![int(d), double(d)].prop_map(|a| format!("uint({a})")),
    ]
    .boxed()
}

fn double(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![pick(DOUBLES), Just("customData.d".to_owned())].boxed();
    if depth == 0 {
        return leaf;
    }
    let d = depth - 1;
    prop_oneof![
        2 => leaf,
        2 => binary(double(d), &["+", "-", "*", "/"], double(d)),
        1 => prop_oneof![int(d), uint(d), string(d)].prop_map(|a| format!("double({a})")),
    ]
    .boxed()
}

fn number(depth: u32) -> BoxedStrategy<String> {
    prop_oneof![int(depth), uint(depth), double(depth)].boxed()
}

fn string(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![pick(STRINGS), pick(STRING_FIELDS)].boxed();
    if depth == 0 {
        return leaf;
    }
    let d = depth - 1;
    prop_oneof![
        3 => leaf,
        1 => binary(string(d), &["+"], string(d)),
        1 => number(d).prop_map(|a| format!("string({a})")),
        1 => (boolean(d), string(d), string(d)).prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")),
    ]
    .boxed()
}

fn list(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![pick(LISTS), pick(LIST_FIELDS)].boxed();
    if depth == 0 {
        return leaf;
    }
    let d = depth - 1;
    prop_oneof![
        3 => leaf,
        1 => binary(list(d), &["+"], list(d)),
        1 => (list(d), prop::sample::select(ARITHMETIC.to_vec()), int(d))
            .prop_map(|(l, op, b)| format!("{l}.map(x, x {op} {b})")),
        1 => (list(d), prop::sample::select(COMPARISONS.to_vec()), anything(d))
            .prop_map(|(l, op, b)| format!("{l}.filter(x, x {op} {b})")),
    ]
    .boxed()
}

/// A term of any type, missing fields and maps included.
fn anything(depth: u32) -> BoxedStrategy<String> {
    prop_oneof![
        number(depth),
        string(depth),
        list(depth),
        pick(MAPS),
        pick(ANY_FIELDS),
        Just("null".to_owned()),
        Just("request.time".to_owned()),
    ]
    .boxed()
}

fn boolean(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![pick(&["true", "false", "customData.b"]), pick(HAS)].boxed();
    if depth == 0 {
        return leaf;
    }
    let d = depth - 1;
    prop_oneof![
        1 => leaf,
        3 => binary(number(d), &COMPARISONS, number(d)),
        2 => binary(string(d), &COMPARISONS, string(d)),
        1 => binary(anything(d), &["==", "!="], anything(d)),
        1 => binary(boolean(d), &["&&", "||"], boolean(d)),
        1 => binary(boolean(d), &["&&", "||"], anything(d)),
        1 => boolean(d).prop_map(|a| format!("!{a}")),
        1 => anything(d).prop_map(|a| format!("!{a}")),
        1 => (boolean(d), boolean(d), anything(d))
            .prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")),
        1 => (prop_oneof![string(d), number(d)], list(d))
            .prop_map(|(a, l)| format!("({a} in {l})")),
        1 => (string(d), pick(MAPS)).prop_map(|(k, m)| format!("({k} in {m})")),
        1 => (string(d), prop::sample::select(STRING_FUNCTIONS.to_vec()), string(d))
            .prop_map(|(a, f, b)| format!("{a}.{f}({b})")),
        1 => (string(d), prop::sample::select(PATTERNS.to_vec()))
            .prop_map(|(a, p)| format!("{a}.matches({p})")),
        1 => (
            list(d),
            prop::sample::select(vec!["exists", "all", "exists_one"]),
            prop::sample::select(COMPARISONS.to_vec()),
            anything(d)
        )
            .prop_map(|(l, m, op, b)| format!("{l}.{m}(x, x {op} {b})")),
        1 => pick(&[
            "request.time > timestamp('2026-01-01T00:00:00Z')",
            "request.time - duration('1h') < timestamp('2026-11-25T10:00:00Z')",
            "request.time.getFullYear() == 2026",
            "request.time.getHours() < 12",
        ]),
    ]
    .boxed()
}

/// Conditions: mostly booleans, some terms of any type (a non-bool result is an error).
fn condition() -> impl Strategy<Value = String> {
    prop_oneof![8 => boolean(3), 1 => anything(2)]
}

fn cases() -> u32 {
    std::env::var("CEL_DIFFERENTIAL_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(20_000)
}

#[test]
fn regressions_agree_with_the_cel_crate() {
    let mut tally = Tally::default();
    for (condition, context) in REGRESSIONS {
        let context: Json = serde_json::from_str(context).expect("a regression's context is JSON");
        if let Err(why) = check(condition, &context, &mut tally) {
            panic!("{condition} on {context}: {why}");
        }
    }
}

/// Runs `cases` generated cases; the tally, or the minimal failing case.
fn run_cases(cases: u32) -> Result<Tally, String> {
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let tally = std::cell::RefCell::new(Tally::default());
    TestRunner::new(config)
        .run(&(condition(), context()), |(condition, context)| {
            check(&condition, &context, &mut tally.borrow_mut())
                .map_err(|why| TestCaseError::fail(format!("{condition}  on  {context}: {why}")))
        })
        .map_err(|e| e.to_string())?;
    Ok(tally.into_inner())
}

#[test]
fn the_registry_decides_as_the_cel_crate_does() {
    // the cases split over the machine's cores, each share from its own random seed
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8) as u32;
    let share = cases().div_ceil(threads);
    let runs: Vec<_> = (0..threads).map(|_| std::thread::spawn(move || run_cases(share))).collect();
    let mut tally = Tally::default();
    for run in runs {
        match run.join() {
            Ok(Ok(t)) => {
                tally.matched += t.matched;
                tally.not_matched += t.not_matched;
                tally.error += t.error;
                tally.refused += t.refused;
            }
            Ok(Err(failure)) => {
                panic!("{failure}\n(keep the minimal case in REGRESSIONS once it is fixed)")
            }
            Err(_) => panic!("a run panicked"),
        }
    }
    let decided = tally.matched + tally.not_matched + tally.error;
    println!("{tally:?}");
    // the generator is only worth its cases when each outcome is common
    for (what, n) in
        [("matched", tally.matched), ("not matched", tally.not_matched), ("error", tally.error)]
    {
        assert!(
            n * 20 >= decided,
            "{what}: {n} of {decided} cases; the generator is off: {tally:?}"
        );
    }
    assert!(tally.refused * 10 <= decided, "the registry refused too many: {tally:?}");
}
