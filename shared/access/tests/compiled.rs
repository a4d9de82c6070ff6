#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The compiled form against the interpreter, directly: the same rule lists (one to
//! three rules of generated conditions, each `allow` or `deny`, enforced or log-only)
//! explained on the same prepared context by the compiled form (where it answers) and
//! by the interpreter alone must give the same decision and the same result for every
//! rule, error messages included. Access rules on the context, and call rules on a
//! call's typed arguments and the session. The test also fails when the compiled form
//! answers too few of the conditions, or none of the budget's end.
//!
//! Cases: `CEL_COMPILED_CASES` (default 20,000, what CI runs), drawn from the fixed seed
//! `generate::SEED` (or `PROPTEST_RNG_SEED`, as `scripts/campaign.sh` sets it). Every
//! divergence ever found is kept in [`REGRESSIONS`] and checked first.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
mod generate;

use generate::Terms;
use registry_access::{
    AccessRule, ArgType, CallSchema, Effect, Engine, PreparedContext, RuleResult, RuleSet,
    SessionView, ToolCall,
};
use serde_json::{Map, Value as Json, json};
use std::sync::Arc;

/// The schema of the call rules' one function (see `generate::CALL_TERMS`).
fn schema() -> Arc<CallSchema> {
    let mut schema = CallSchema::new();
    schema.function(
        "f",
        [
            ("amount".to_owned(), ArgType::Number),
            ("count".to_owned(), ArgType::Integer),
            ("name".to_owned(), ArgType::String),
            ("tags".to_owned(), ArgType::Array),
            ("meta".to_owned(), ArgType::Object),
        ],
    );
    Arc::new(schema)
}

/// A call: its arguments, mostly of their declared type, sometimes not, sometimes absent.
fn arguments() -> impl Strategy<Value = Map<String, Json>> {
    let arg = |usual: Vec<Json>| {
        prop::option::weighted(
            0.85,
            prop_oneof![4 => prop::sample::select(usual), 1 => generate::json_value()],
        )
    };
    (
        arg(vec![json!(0.5), json!(100), json!(250.75), json!(-1.5), json!(1e308)]),
        arg(vec![json!(0), json!(7), json!(-1), json!(i64::MAX)]),
        arg(vec![json!("a"), json!("é"), json!(""), json!("a😀b")]),
        arg(vec![json!(["a", "é"]), json!([]), json!([1, "a"])]),
        arg(vec![json!({"k": "a"}), json!({}), json!({"k": 1})]),
    )
        .prop_map(|(amount, count, name, tags, meta)| {
            [("amount", amount), ("count", count), ("name", name), ("tags", tags), ("meta", meta)]
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
                .collect()
        })
}

/// A rule list: one to three rules.
fn rules(terms: Terms) -> impl Strategy<Value = Vec<AccessRule>> {
    let rule = (generate::subset(2, terms), any::<bool>(), prop::bool::weighted(0.2)).prop_map(
        |(condition, allow, log_only)| {
            let effect = if allow { "allow" } else { "deny" };
            let mode = if log_only { "log-only" } else { "enforce" };
            serde_json::from_value(json!({"condition": condition, "effect": effect, "mode": mode}))
                .expect("a rule")
        },
    );
    prop::collection::vec(rule, 1..=3)
}

/// Tallies of one run.
#[derive(Debug, Default)]
struct Tally {
    /// Rule lists compiled and explained.
    decided: usize,
    /// Rule lists the write checks refused.
    refused: usize,
    /// Conditions evaluated, and of them answered by the compiled form.
    conditions: usize,
    compiled: usize,
    matched: usize,
    not_matched: usize,
    error: usize,
}

impl Tally {
    fn add(&mut self, t: &Tally) {
        self.decided += t.decided;
        self.refused += t.refused;
        self.conditions += t.conditions;
        self.compiled += t.compiled;
        self.matched += t.matched;
        self.not_matched += t.not_matched;
        self.error += t.error;
    }
}

/// Explains `rules` both ways; `Err` describes a divergence.
fn check(
    rules: &[AccessRule],
    context: &Json,
    call: Option<(&Map<String, Json>, u64)>,
    tally: &mut Tally,
) -> Result<(), String> {
    let text = context.to_string();
    let prepared = PreparedContext::from_json(text.as_bytes()).map_err(|e| format!("{e:?}"))?;
    let set = match call {
        None => RuleSet::compile(rules),
        Some(_) => RuleSet::compile_call(rules, schema()),
    };
    let Ok(set) = set else {
        tally.refused += 1;
        return Ok(());
    };
    let arguments = call.map(|(arguments, calls)| {
        let call = ToolCall { function: "f", http_method: None, arguments };
        (call, SessionView { calls, ..SessionView::default() })
    });
    let on = |engine| set.explain_on(&prepared, arguments.as_ref().map(|(c, s)| (c, *s)), engine);
    let (compiled, compiled_outcomes, answered) = on(Engine::Compiled);
    let (interpreted, interpreted_outcomes, none) = on(Engine::Interpreter);
    if none != 0 {
        return Err("the interpreter alone used the compiled form".into());
    }
    if (&compiled, &compiled_outcomes) != (&interpreted, &interpreted_outcomes) {
        return Err(format!(
            "compiled {compiled:?} {compiled_outcomes:?}\n  interpreter {interpreted:?} {interpreted_outcomes:?}"
        ));
    }
    tally.decided += 1;
    tally.conditions += compiled_outcomes.len();
    tally.compiled += answered;
    for outcome in &compiled_outcomes {
        match outcome.result {
            RuleResult::Matched => tally.matched += 1,
            RuleResult::NotMatched => tally.not_matched += 1,
            RuleResult::Error(_) => tally.error += 1,
        }
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("CEL_COMPILED_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(20_000)
}

/// Rule lists this test has found diverging, kept as regressions: `(rules as
/// `(condition, effect)`, context JSON)`, each explained as access rules.
const REGRESSIONS: &[(&[(&str, &str)], &str)] = &[
    // the interpreter walked a map in its hash order: which element's error stood
    // changed from one run to the next (decision 97)
    (
        &[
            (
                "(customData.missing in customData.l) || ((request.toolId > user.roles) || customData['s'])",
                "allow",
            ),
            ("size(request.agentId) >= 7", "deny"),
            (
                "customData.m.exists(x, (x != request.region) ? request.contains('e\\u0301') : (customData.b in x))",
                "allow",
            ),
        ],
        r#"{"customData":{"m":{"a":"","é":1e308},"b":{}},"request":{"region":"a","time":"2026-11-25T10:00:00Z"}}"#,
    ),
];

#[test]
fn regressions_decide_as_the_interpreter() {
    for (rules, context) in REGRESSIONS {
        let rules: Vec<AccessRule> = rules
            .iter()
            .map(|(condition, effect)| {
                serde_json::from_value(json!({"condition": condition, "effect": effect}))
                    .expect("a rule")
            })
            .collect();
        let context: Json = serde_json::from_str(context).expect("a regression's context");
        // the hash order of a map is drawn anew for every map built: many runs
        for _ in 0..200 {
            if let Err(why) = check(&rules, &context, None, &mut Tally::default()) {
                panic!("{context}: {why}");
            }
        }
    }
}

/// Runs `cases` generated cases (access rules, or call rules with `call`) as share
/// `share` of a run.
fn run_cases(cases: u32, share: u32, call: bool) -> Result<Tally, String> {
    let tally = std::cell::RefCell::new(Tally::default());
    let terms = if call { Terms::Call } else { Terms::Access };
    let calls = prop::sample::select(vec![0u64, 3, u64::MAX]);
    generate::runner(cases, share)
        .run(
            &(rules(terms), generate::context(), arguments(), calls),
            |(rules, context, arguments, calls)| {
                let call = call.then_some((&arguments, calls));
                check(&rules, &context, call, &mut tally.borrow_mut()).map_err(|why| {
                    let conditions: Vec<_> = rules.iter().map(|r| &r.condition).collect();
                    TestCaseError::fail(format!(
                        "{conditions:?}  on  {context}  {arguments:?}: {why}"
                    ))
                })
            },
        )
        .map_err(|e| format!("{e}\n(seed {}, share {share})", generate::seed()))?;
    Ok(tally.into_inner())
}

/// Splits `cases` into shares of their own seeds (`generate::runner`), run over the
/// machine's cores; the shares and so the cases are the same on any machine.
fn run_split(cases: u32, call: bool) -> Tally {
    let tally = generate::run_shares(cases, |n, share| run_cases(n, share, call), Tally::add)
        .unwrap_or_else(|failure| panic!("{failure}"));
    println!("seed {}: {tally:?}", generate::seed());
    tally
}

/// The generator is only worth its cases when every outcome is common and the compiled
/// form answers most conditions it can (an error is always the interpreter's).
fn assert_reach(tally: &Tally) {
    for (what, n) in
        [("matched", tally.matched), ("not matched", tally.not_matched), ("error", tally.error)]
    {
        assert!(n * 20 >= tally.conditions, "{what}: the generator is off: {tally:?}");
    }
    let answers = tally.matched + tally.not_matched;
    assert!(
        tally.compiled * 3 >= tally.conditions && tally.compiled * 4 >= answers * 3,
        "the compiled form answered too few: {tally:?}"
    );
}

#[test]
fn compiled_access_rules_decide_as_the_interpreter() {
    assert_reach(&run_split(cases() / 2, false));
}

#[test]
fn compiled_call_rules_decide_as_the_interpreter() {
    assert_reach(&run_split(cases() / 2, true));
}

/// A decision that runs out of steps: compiled rules take the interpreter's steps, and
/// the rule that would overrun the budget is left to the interpreter, which reports it.
#[test]
fn the_budget_runs_out_where_the_interpreter_says() {
    let long = "a".repeat(registry_access::limits::MAX_CONTEXT_STRING_BYTES);
    let list = vec![long; registry_access::limits::MAX_CONTEXT_COLLECTION];
    let context = json!({"customData": {"l": list}});
    let text = context.to_string();
    let prepared = PreparedContext::from_json(text.as_bytes()).unwrap();
    // each rule scans 64 strings of 4 KiB: about 4,500 steps of the 100,000
    let rule = AccessRule::new(Effect::Allow, Some("customData.l.exists(a, a.contains('b'))"));
    let set = RuleSet::compile(&vec![rule; 30]).unwrap();
    let (compiled, outcomes, answered) = set.explain_on(&prepared, None, Engine::Compiled);
    let (interpreted, expected, _) = set.explain_on(&prepared, None, Engine::Interpreter);
    assert_eq!((&compiled, &outcomes), (&interpreted, &expected));
    let budget = |o: &&registry_access::RuleOutcome| matches!(&o.result, RuleResult::Error(m) if m.contains("budget"));
    let first = outcomes.iter().position(|o| budget(&o)).expect("the budget runs out");
    assert!((10..30).contains(&first), "{outcomes:?}");
    assert_eq!(answered, first, "the compiled form answers every rule before it");
}
