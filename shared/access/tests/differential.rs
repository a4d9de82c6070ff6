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
//! Cases: `CEL_DIFFERENTIAL_CASES` (default 20,000, what CI runs), drawn from the fixed
//! seed `generate::SEED`; campaigns with fresh seeds (`scripts/campaign.sh`,
//! docs/rules.md) set `PROPTEST_RNG_SEED`. Every divergence ever found is kept in
//! [`REGRESSIONS`] and checked first.

use proptest::test_runner::TestCaseError;
mod common;
mod generate;

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
    // two elements of a map err differently: which error stands followed the map's hash
    // order (decision 97); the outcome is an error either way
    (
        "customData.m.exists(x, (x != request.region) ? request.contains('e\\u0301') : (customData.b in x))",
        r#"{"customData":{"m":{"a":"","é":1e308},"b":{}},"request":{"region":"a","time":"2026-11-25T10:00:00Z"}}"#,
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

/// The registry's answer from both ways of preparing a context, and whether the
/// compiled form gave it (from JSON), or `None` when its write checks refuse the
/// condition.
fn registry(condition: &str, context: &Json) -> Result<Option<(Outcome, Outcome, bool)>, String> {
    let text = context.to_string();
    let from_json = PreparedContext::from_json(text.as_bytes()).map_err(|e| format!("{e:?}"))?;
    let typed: RequestContext =
        serde_json::from_value(context.clone()).map_err(|e| e.to_string())?;
    let from_typed = PreparedContext::new(&typed).map_err(|e| format!("{e:?}"))?;
    Ok(common::registry_traced(condition, &from_json)
        .zip(common::registry(condition, &from_typed))
        .map(|((json, compiled), typed)| (json, typed, compiled)))
}

/// Tallies of one run, to show the generator reaches every outcome and the compiled
/// form.
#[derive(Debug, Default)]
struct Tally {
    matched: usize,
    not_matched: usize,
    error: usize,
    refused: usize,
    /// Outcomes the compiled form gave.
    compiled: usize,
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
        Some((from_json, from_typed, compiled)) => {
            tally.compiled += usize::from(compiled);
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

/// Runs `cases` generated cases as share `share` of a run; the tally, or the minimal
/// failing case.
fn run_cases(cases: u32, share: u32) -> Result<Tally, String> {
    let tally = std::cell::RefCell::new(Tally::default());
    generate::runner(cases, share)
        .run(&(generate::condition(), generate::context()), |(condition, context)| {
            check(&condition, &context, &mut tally.borrow_mut())
                .map_err(|why| TestCaseError::fail(format!("{condition}  on  {context}: {why}")))
        })
        .map_err(|e| format!("{e}\n(seed {}, share {share})", generate::seed()))?;
    Ok(tally.into_inner())
}

impl Tally {
    fn add(&mut self, t: &Tally) {
        self.matched += t.matched;
        self.not_matched += t.not_matched;
        self.error += t.error;
        self.refused += t.refused;
        self.compiled += t.compiled;
    }
}

#[test]
fn the_registry_decides_as_the_cel_crate_does() {
    let tally = generate::run_shares(cases(), run_cases, Tally::add).unwrap_or_else(|failure| {
        panic!("{failure}\n(keep the minimal case in REGRESSIONS once it is fixed)")
    });
    let decided = tally.matched + tally.not_matched + tally.error;
    println!("seed {}: {tally:?}", generate::seed());
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
    // the compiled form answers a good share (never an error: those are the
    // interpreter's), so that what it gives is checked here too
    assert!(
        tally.compiled * 6 >= decided && tally.compiled * 3 >= tally.matched + tally.not_matched,
        "the compiled form answered too few: {tally:?}"
    );
}
