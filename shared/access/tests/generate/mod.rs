//! Generated conditions and contexts for the differential tests: conditions over the
//! four variables with every type mixed in, and contexts whose fields vary in presence,
//! type and value (see `differential.rs`).

// each test binary uses a part of it
#![allow(dead_code)]

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use serde_json::{Value as Json, json};

/// The seed the suite runs with: every run of the test command draws the same cases, so
/// its verdict does not depend on the draw. A new seed is a deliberate change, in a
/// commit of its own; campaigns with fresh seeds run apart (`scripts/campaign.sh`,
/// docs/rules.md), setting `PROPTEST_RNG_SEED`.
pub const SEED: u64 = 20_261_129;

/// The seed of this run: `PROPTEST_RNG_SEED` when a campaign sets it, else [`SEED`].
pub fn seed() -> u64 {
    std::env::var("PROPTEST_RNG_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(SEED)
}

/// Shares a run's cases are split into, each drawn from its own seed (`seed + share`),
/// so that the cases are the same on any number of cores.
pub const SHARES: u32 = 8;

/// Runs `cases` cases as [`SHARES`] shares over the machine's cores: `run(cases, share)`
/// runs one share and gives its tally, `add` adds a tally into another. The first
/// failure (the minimal case) is the error.
pub fn run_shares<T: Default + Send>(
    cases: u32,
    run: impl Fn(u32, u32) -> Result<T, String> + Sync,
    add: fn(&mut T, &T),
) -> Result<T, String> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8) as u32;
    let per_share = cases.div_ceil(SHARES);
    std::thread::scope(|scope| {
        let runs: Vec<_> = (0..threads)
            .map(|thread| {
                let run = &run;
                scope.spawn(move || {
                    let mut tally = T::default();
                    for share in (thread..SHARES).step_by(threads as usize) {
                        add(&mut tally, &run(per_share, share)?);
                    }
                    Ok::<_, String>(tally)
                })
            })
            .collect();
        let mut tally = T::default();
        for handle in runs {
            add(&mut tally, &handle.join().map_err(|_| "a run panicked".to_owned())??);
        }
        Ok(tally)
    })
}

/// A runner of `cases` cases for share `share` of a run split over threads: seeded from
/// [`seed`] and the share, so that the shares draw different cases and a run draws the
/// same ones every time. Failures are kept in the test's `REGRESSIONS`, not in files.
pub fn runner(cases: u32, share: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(seed().wrapping_add(u64::from(share))),
        ..Config::default()
    };
    TestRunner::new(config)
}

/// Text values: ASCII, Latin-1, a combining mark, emoji, the empty string.
pub const TEXTS: [&str; 10] = ["", "a", "abc", "é", "e\u{301}", "😀", "Straße", "ÿ", "İx", "a😀b"];

pub fn json_scalar() -> impl Strategy<Value = Json> {
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

pub fn json_value() -> impl Strategy<Value = Json> {
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

/// A JSON object of two to four members of mixed types: a map whose walk meets values
/// that each err their own way.
pub fn map_of_several() -> impl Strategy<Value = Json> {
    prop::collection::btree_map(
        prop::sample::select(vec!["k", "a", "é", "n", "e\u{301}"]),
        json_value(),
        2..5,
    )
    .prop_map(|m| Json::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

/// An optional string field of a typed root.
pub fn text_field() -> impl Strategy<Value = Option<Json>> {
    prop::option::weighted(0.8, prop::sample::select(TEXTS.to_vec()).prop_map(Json::from))
}

pub fn context() -> impl Strategy<Value = Json> {
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
        typed("m", prop_oneof![json_value(), map_of_several()].boxed()),
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
pub fn pick(items: &[&'static str]) -> BoxedStrategy<String> {
    prop::sample::select(items.to_vec()).prop_map(str::to_owned).boxed()
}

pub const INTS: &[&str] =
    &["0", "1", "-1", "2", "7", "9223372036854775807", "-9223372036854775808"];
pub const UINTS: &[&str] = &["0u", "1u", "2u", "18446744073709551615u", "9223372036854775808u"];
pub const DOUBLES: &[&str] =
    &["0.0", "-0.0", "1.0", "0.5", "-1.5", "1e308", "-1e308", "double('NaN')"];
pub const STRINGS: &[&str] = &[
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
pub const LISTS: &[&str] = &["[1, 2, 3]", "['a', 'é', '😀']", "[1, 1u, 1.0]", "[]", "[0.5, -0.0]"];
pub const MAPS: &[&str] = &["{'k': 1, 'a': 'é'}", "{}", "{1: 'x', 2u: 'y'}"];
pub const STRING_FIELDS: &[&str] = &[
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
pub const LIST_FIELDS: &[&str] = &["user.roles", "customData.l"];
pub const ANY_FIELDS: &[&str] = &[
    "customData.missing",
    "customData.m.k",
    "customData.l[0]",
    "customData.z",
    "user",
    "customData",
    "request",
    "customData.m",
];
pub const COMPARISONS: [&str; 6] = ["==", "!=", "<", "<=", ">", ">="];
pub const ARITHMETIC: [&str; 5] = ["+", "-", "*", "/", "%"];
pub const STRING_FUNCTIONS: [&str; 3] = ["contains", "startsWith", "endsWith"];
pub const PATTERNS: [&str; 5] = ["'^a'", "'é$'", "'^.$'", "'[0-9]+'", "'^\\\\w+$'"];
pub const HAS: &[&str] = &[
    "has(user.email)",
    "has(user.roles)",
    "has(customData.m)",
    "has(customData.m.k)",
    "has(request.region)",
    "has(customData.s.k)",
];

/// `(a op b)`.
pub fn binary(
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

pub fn int(depth: u32) -> BoxedStrategy<String> {
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

pub fn uint(depth: u32) -> BoxedStrategy<String> {
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

pub fn double(depth: u32) -> BoxedStrategy<String> {
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

pub fn number(depth: u32) -> BoxedStrategy<String> {
    prop_oneof![int(depth), uint(depth), double(depth)].boxed()
}

pub fn string(depth: u32) -> BoxedStrategy<String> {
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

pub fn list(depth: u32) -> BoxedStrategy<String> {
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
pub fn anything(depth: u32) -> BoxedStrategy<String> {
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

pub fn boolean(depth: u32) -> BoxedStrategy<String> {
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
        1 => map_comprehension(d),
        1 => pick(&[
            "request.time > timestamp('2026-01-01T00:00:00Z')",
            "request.time - duration('1h') < timestamp('2026-11-25T10:00:00Z')",
            "request.time.getFullYear() == 2026",
            "request.time.getHours() < 12",
        ]),
    ]
    .boxed()
}

/// Maps a comprehension walks: their keys of one kind or of several, some of them
/// absent or not maps at all.
pub const MAP_RANGES: &[&str] = &[
    "customData.m",
    "customData.z",
    "customData",
    "user",
    "request",
    "account",
    "{'k': 1, 'a': 'é'}",
    "{1: 'x', 2u: 'y', true: 'z', 'a': 1}",
    "{'a': 1, 'b': 'x', 'c': [], 'd': {}}",
];

/// A comprehension over a map whose elements can each give a different error, so that
/// which error stands (and a `map`'s order) depends on the order the map is walked in
/// (decision 97): `exists`, `all`, `exists_one` and, read in ways that do not depend on
/// the order, `filter` and `map`.
pub fn map_comprehension(depth: u32) -> BoxedStrategy<String> {
    let range = || pick(MAP_RANGES);
    let pred = prop_oneof![
        (pick(&COMPARISONS), anything(depth)).prop_map(|(op, b)| format!("x {op} {b}")),
        (prop::sample::select(STRING_FUNCTIONS.to_vec()), string(depth))
            .prop_map(|(f, b)| format!("x.{f}({b})")),
        (string(depth), boolean(depth), boolean(depth))
            .prop_map(|(s, a, b)| format!("(x != {s}) ? {a} : {b}")),
        (anything(depth), pick(MAP_RANGES)).prop_map(|(a, m)| format!("({a} in x) || x in {m}")),
        pick(&["x.size() > 0", "size(x) > 1", "has(x.k)", "x > 0", "x == 'a'"]),
    ]
    .boxed();
    prop_oneof![
        (range(), pick(&["exists", "all", "exists_one"]), pred.clone())
            .prop_map(|(m, f, p)| format!("{m}.{f}(x, {p})")),
        (range(), pred.clone(), pick(&COMPARISONS), pick(&INTS[..5]))
            .prop_map(|(m, p, op, n)| format!("size({m}.filter(x, {p})) {op} {n}")),
        (string(depth), range(), pred)
            .prop_map(|(s, m, p)| format!("({s} in {m}.map(x, x).filter(x, {p}))")),
    ]
    .boxed()
}

/// Conditions: mostly booleans (of which many in the compiled subset), some terms of
/// any type (a non-bool result is an error).
pub fn condition() -> impl Strategy<Value = String> {
    prop_oneof![8 => boolean(3), 1 => anything(2), 6 => subset(3, Terms::Access)]
}

/// Terms of the compiled subset besides [`STRING_FIELDS`], [`LIST_FIELDS`] and
/// [`ANY_FIELDS`]: fields of every type (present or not, of the type expected or not),
/// indexing, literals.
const SUBSET_TERMS: &[&str] = &[
    "customData.n",
    "customData.u",
    "customData.d",
    "customData.b",
    "customData['s']",
    "customData.m['k']",
    "customData['missing']",
    "request.toolId",
    "null",
    "true",
    "false",
];

/// The arguments of the call rules' one function `f` (`tests/compiled.rs`): `amount` a
/// number, `count` an integer, `name` a string, `tags` an array, `meta` an object.
const CALL_TERMS: &[&str] = &[
    "call.arguments.amount",
    "call.arguments.count",
    "call.arguments.name",
    "call.arguments.tags",
    "call.arguments.meta",
    "call.arguments.meta.k",
    "call.arguments['name']",
    "call.function",
    "session.calls",
];

/// Which variables the terms of [`subset`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Terms {
    /// The context.
    Access,
    /// The context, a call's arguments and the session.
    Call,
}

/// A term of the compiled subset; `x` too inside `exists`/`all` (`local`).
fn subset_term(terms: Terms, local: bool) -> BoxedStrategy<String> {
    let mut picks = vec![
        pick(STRING_FIELDS),
        pick(LIST_FIELDS),
        pick(ANY_FIELDS),
        pick(SUBSET_TERMS),
        pick(INTS),
        pick(UINTS),
        pick(&DOUBLES[..7]),
        pick(STRINGS),
        pick(&LISTS[..4]),
    ];
    if terms == Terms::Call {
        picks.push(pick(CALL_TERMS));
        picks.push(pick(CALL_TERMS));
    }
    if local {
        picks.push(Just("x".to_owned()).boxed());
        picks.push(Just("x".to_owned()).boxed());
    }
    let term = prop::strategy::Union::new(picks).boxed();
    prop_oneof![5 => term.clone(), 1 => term.prop_map(|t| format!("size({t})"))].boxed()
}

/// Conditions in the compiled subset (`&&`, `||`, `!`, `? :`, comparisons, `in`,
/// `has()`, string scans, `size`, `exists`/`all`), on terms of every type, so that the
/// compiled form meets errors, mixed types and values it leaves to the interpreter.
pub fn subset(depth: u32, terms: Terms) -> BoxedStrategy<String> {
    subset_in(depth, terms, false)
}

fn subset_in(depth: u32, terms: Terms, local: bool) -> BoxedStrategy<String> {
    let term = move || subset_term(terms, local);
    let mut has = HAS.to_vec();
    if terms == Terms::Call {
        has.extend(["has(call.arguments.name)", "has(call.arguments.meta.k)"]);
    }
    if local {
        has.push("has(x.k)");
    }
    let strings = move || {
        let mut picks = vec![pick(STRING_FIELDS), pick(STRING_FIELDS), pick(STRINGS)];
        if terms == Terms::Call {
            picks.push(pick(&["call.arguments.name", "call.function"]));
        }
        if local {
            picks.push(Just("x".to_owned()).boxed());
        }
        prop::strategy::Union::new(picks).boxed()
    };
    let mut numbers = vec![
        (pick(&["customData.n"]), pick(INTS)),
        (pick(&["customData.u"]), pick(UINTS)),
        (pick(&["customData.d"]), pick(&DOUBLES[..7])),
    ];
    if terms == Terms::Call {
        numbers.push((pick(&["call.arguments.amount"]), pick(&DOUBLES[..7])));
        numbers.push((pick(&["call.arguments.count", "session.calls"]), pick(INTS)));
    }
    let numbers =
        prop::sample::select((0..numbers.len()).collect::<Vec<_>>()).prop_flat_map(move |i| {
            let (field, literal) = numbers[i].clone();
            let side = move || prop_oneof![field.clone(), literal.clone()];
            (side(), prop::sample::select(COMPARISONS.to_vec()), side())
                .prop_map(|(a, op, b)| format!("({a} {op} {b})"))
        });
    let lists = move || {
        let mut picks = vec![pick(LIST_FIELDS), pick(&LISTS[1..2]), pick(&["['a', 'abc', '']"])];
        if terms == Terms::Call {
            picks.push(pick(&["call.arguments.tags"]));
        }
        prop::strategy::Union::new(picks).boxed()
    };
    let leaf = prop_oneof![
        1 => prop::sample::select(has).prop_map(str::to_owned),
        1 => pick(&["true", "false", "customData.b"]),
        4 => binary(strings(), &COMPARISONS, strings()),
        3 => numbers,
        2 => (strings(), lists()).prop_map(|(a, l)| format!("({a} in {l})")),
        2 => (strings(), prop::sample::select(STRING_FUNCTIONS.to_vec()), strings())
            .prop_map(|(a, f, b)| format!("{a}.{f}({b})")),
        1 => (prop_oneof![strings(), lists()], pick(&COMPARISONS), pick(INTS))
            .prop_map(|(a, op, n)| format!("(size({a}) {op} {n})")),
        2 => binary(term(), &COMPARISONS, term()),
        1 => (term(), term()).prop_map(|(a, l)| format!("({a} in {l})")),
        1 => (term(), prop::sample::select(STRING_FUNCTIONS.to_vec()), term())
            .prop_map(|(a, f, b)| format!("{a}.{f}({b})")),
    ]
    .boxed();
    if depth == 0 {
        return leaf;
    }
    let d = depth - 1;
    let sub = move || subset_in(d, terms, local);
    let mut options = vec![
        (3, leaf),
        (3, binary(sub(), &["&&", "||"], sub())),
        (1, binary(sub(), &["&&", "||"], term())),
        (1, sub().prop_map(|a| format!("!{a}")).boxed()),
        (1, (sub(), sub(), sub()).prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")).boxed()),
    ];
    if !local {
        let ranges = [LIST_FIELDS, &["customData.m", "customData.z", "['a', 'é']", "[1, 2u]"]];
        let ranges = pick(&ranges.concat());
        options.push((
            2,
            (ranges, pick(&["exists", "all"]), subset_in(d, terms, true))
                .prop_map(|(l, m, p)| format!("{l}.{m}(x, {p})"))
                .boxed(),
        ));
    }
    prop::strategy::Union::new_weighted(options).boxed()
}
