//! Differential tests: the fast path (`lower` + `fast_eval`) against the `cel`
//! interpreter on random conditions (inside the subset and outside it) and random
//! request contexts (absent fields, wrong types, empty lists, nested data).
//!
//! Conditions come from a small grammar driven by a list of choices that proptest
//! generates and shrinks. For every condition and context: where the fast path gives
//! a value, the interpreter gives the same value (same type, equal) and leaves the same
//! step budget; where the fast path reports an error, the interpreter errors too. Then
//! whole rule lists are decided both ways and must give identical decisions and
//! per-rule results, error messages included.

use crate::compile::{self, Condition};
use crate::decision::Decision;
use crate::evaluate::{RuleOutcome, RuleResult};
use crate::fast_eval::{Eval, Fail, with_val};
use crate::rule::{AccessRule, Effect};
use crate::rule_set::RuleSet;
use crate::{PreparedContext, RequestContext, budget, env};
use cel::{Context, Value};
use proptest::prelude::*;
use serde_json::{Value as J, json};
use std::sync::Arc;

/// Reads choices in turn; past the end every choice is 0 (the simplest option).
struct Gen<'c> {
    choices: &'c [u32],
    at: usize,
    /// Comprehension variables in scope, innermost last.
    vars: Vec<&'static str>,
    /// Whether a construct outside the subset was used.
    outside: bool,
}

const STRINGS: &[&str] = &[
    "'internal-user'",
    "'premium'",
    "'admin'",
    "''",
    "'acct-456'",
    "'us-'",
    "'us-west-2'",
    "'new-agent'",
    "'n'",
    "'tier'",
];
const OTHER_LITERALS: &[&str] =
    &["1", "0", "2", "-1", "1.0", "0.5", "true", "false", "null", "1u", "18446744073709551615u"];
const PATHS: &[&str] = &[
    "user.userType",
    "user.email",
    "user.roles",
    "user.userId",
    "account.type",
    "account.accountId",
    "request.toolId",
    "request.agentId",
    "request.region",
    "request.time",
    "customData.tier",
    "customData.n",
    "customData.f",
    "customData.ok",
    "customData.nil",
    "customData.list",
    "customData.nested",
    "customData.nested.tier",
    "customData.nested.n",
    "customData.nested.list",
    "customData.missing",
    "customData.tier.deeper",
    "customData['tier']",
    "customData['missing']",
    "customData.list[1]",
    "customData.list[-1]",
    "user.roles[0]",
    "customData.nested['list'][0]",
    "user",
    "customData",
    "account",
];
const HAS_PATHS: &[&str] = &[
    "customData.tier",
    "customData.list",
    "customData.missing",
    "customData.nested.tier",
    "customData.nested.list",
    "customData.tier.x",
    "user.email",
    "user.roles",
    "account.type",
    "request.toolId",
    "request.agentId",
    "request.region",
    "request.time",
];
const RANGES: &[&str] = &[
    "user.roles",
    "customData.list",
    "customData.nested.list",
    "customData.tier",
    "customData.nested",
    "customData.missing",
    "[]",
    "['admin', 'x']",
    "[1, 2.0, 'n']",
    "[[1], [2, 3]]",
    "user",
    "account",
    "customData",
];
const VARS: &[&str] = &["x", "y", "user"];

impl Gen<'_> {
    fn pick(&mut self, n: usize) -> usize {
        let c = self.choices.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        c as usize % n.max(1)
    }

    fn one(&mut self, options: &[&'static str]) -> &'static str {
        options[self.pick(options.len())]
    }

    fn leaf(&mut self) -> String {
        match self.pick(6) {
            0 => self.one(STRINGS).to_string(),
            1 => self.one(OTHER_LITERALS).to_string(),
            2 | 3 => self.one(PATHS).to_string(),
            4 if !self.vars.is_empty() => {
                let at = self.pick(self.vars.len());
                let v = self.vars[at];
                match self.pick(4) {
                    0 => format!("{v}.tier"),
                    1 => format!("{v}[0]"),
                    _ => v.to_string(),
                }
            }
            _ => {
                // a constant list literal
                let items: Vec<String> = (0..self.pick(4))
                    .map(|_| match self.pick(3) {
                        0 => self.one(OTHER_LITERALS).to_string(),
                        _ => self.one(STRINGS).to_string(),
                    })
                    .collect();
                format!("[{}]", items.join(", "))
            }
        }
    }

    fn expr(&mut self, depth: usize) -> String {
        if depth == 0 {
            return self.leaf();
        }
        let d = depth - 1;
        match self.pick(41) {
            0 | 1 => self.leaf(),
            2 | 3 | 17..=28 => {
                let op = self.one(&["==", "!=", "<", "<=", ">", ">="]);
                format!("{} {op} {}", self.expr(d), self.expr(d))
            }
            4 | 29..=31 => format!("({} && {})", self.expr(d), self.expr(d)),
            5 | 32..=34 => format!("({} || {})", self.expr(d), self.expr(d)),
            6 => format!("!({})", self.expr(d)),
            7 => format!("({} ? {} : {})", self.expr(d), self.expr(d), self.expr(d)),
            8 => {
                let strings = self.pick(2) == 0;
                let items: Vec<String> = (0..self.pick(4))
                    .map(|_| if strings { self.one(STRINGS).to_string() } else { self.leaf() })
                    .collect();
                format!("({} in [{}])", self.expr(d), items.join(", "))
            }
            9 => format!("({} in [{}, {}])", self.expr(d), self.expr(d), self.expr(d)),
            10 => format!("({} in {})", self.expr(d), self.expr(d)),
            11 => match self.pick(2) {
                0 => format!("size({})", self.expr(d)),
                _ => format!("({}).size()", self.expr(d)),
            },
            12 => {
                let f = self.one(&["startsWith", "endsWith", "contains"]);
                format!("({}).{f}({})", self.expr(d), self.expr(d))
            }
            13 => match self.vars.last().copied() {
                Some(v) if self.pick(3) == 0 => format!("has({v}.tier)"),
                _ => format!("has({})", self.one(HAS_PATHS)),
            },
            14 => format!("({})[{}]", self.expr(d), self.expr(d)),
            39 => format!("({} + {})", self.expr(d), self.expr(d)),
            15 | 16 | 35..=38 if self.vars.len() < 2 => {
                let range = match self.pick(3) {
                    0 => self.expr(d),
                    _ => self.one(RANGES).to_string(),
                };
                let v = self.one(VARS);
                let macro_name = self.one(&["exists", "all"]);
                self.vars.push(v);
                let body = self.expr(d);
                self.vars.pop();
                format!("({range}).{macro_name}({v}, {body})")
            }
            15 | 16 | 35..=38 => self.leaf(),
            _ => self.outside(d),
        }
    }

    /// A construct outside the subset.
    fn outside(&mut self, d: usize) -> String {
        self.outside = true;
        match self.pick(10) {
            0 => format!("({} * {})", self.expr(d), self.expr(d)),
            1 => {
                let v = self.one(VARS);
                self.vars.push(v);
                let body = self.expr(d);
                self.vars.pop();
                format!("({}).exists_one({v}, {body})", self.one(RANGES))
            }
            2 => format!("size(({}).map(x, x))", self.one(RANGES)),
            3 => "request".to_string(),
            4 => format!("{{'tier': {}}}", self.expr(d)),
            5 => format!("string({})", self.expr(d)),
            6 => format!("({}).matches('^a')", self.expr(d)),
            7 => format!("-({})", self.expr(d)),
            8 => format!("size([{}, 1])", self.one(PATHS)),
            _ => "request.time > timestamp('2020-01-01T00:00:00Z')".to_string(),
        }
    }
}

/// A condition from `choices`, and whether it stays inside the subset.
fn condition(choices: &[u32]) -> (String, bool) {
    let mut g = Gen { choices, at: 0, vars: Vec::new(), outside: false };
    let source = g.expr(4);
    (source, !g.outside)
}

fn scalar() -> impl Strategy<Value = J> {
    prop_oneof![
        prop::sample::select(vec!["premium", "internal-user", "admin", "", "n", "new-agent"])
            .prop_map(|s| json!(s)),
        (-2i64..3).prop_map(|i| json!(i)),
        Just(json!(18446744073709551615u64)),
        prop::sample::select(vec![0.5f64, 1.0, -1.5]).prop_map(|f| json!(f)),
        any::<bool>().prop_map(|b| json!(b)),
        Just(J::Null),
    ]
}

fn data() -> impl Strategy<Value = J> {
    scalar().prop_recursive(2, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(J::Array),
            prop::collection::btree_map(
                prop::sample::select(vec!["tier", "n", "list", "x"]),
                inner,
                0..3
            )
            .prop_map(|m| J::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

fn opt_str(pool: &'static [&'static str]) -> impl Strategy<Value = Option<String>> {
    prop::option::weighted(0.8, prop::sample::select(pool).prop_map(str::to_string))
}

fn context() -> impl Strategy<Value = RequestContext> {
    let user = (
        opt_str(&["user-42", ""]),
        opt_str(&["internal-user", "external-user", ""]),
        opt_str(&["a@example.com", "premium"]),
        prop::option::weighted(
            0.8,
            prop::collection::vec(
                prop::sample::select(vec!["admin", "site-admin", "analyst", ""]),
                0..3,
            ),
        ),
    );
    let custom = prop::collection::btree_map(
        prop::sample::select(vec!["tier", "n", "f", "ok", "nil", "list", "nested"]),
        data(),
        2..7,
    );
    let rest = (
        opt_str(&["acct-456", "acct-1"]),
        opt_str(&["retailer", "premium"]),
        opt_str(&["us-west-2", "eu-west-1"]),
        opt_str(&["weather-agent", "admin"]),
        opt_str(&["weather-basic@1", "n"]),
    );
    (user, custom, rest).prop_map(
        |((id, kind, email, roles), custom, (acct, kind2, region, agent, tool))| {
            serde_json::from_value(json!({
            "user": {"userId": id, "userType": kind, "email": email,
                     "roles": roles.map(|r| r.into_iter().map(str::to_string).collect::<Vec<_>>())},
            "customData": custom,
            "account": {"accountId": acct, "type": kind2},
            "request": {"region": region, "agentId": agent, "toolId": tool,
                        "time": "2024-05-01T10:00:00Z"}
        }))
        .unwrap()
        },
    )
}

fn compiled(source: &str) -> Option<Condition> {
    compile::conditions(vec![Some(source.to_string())]).pop().flatten()?.ok()
}

/// Compares the fast path and the interpreter on one condition, context and budget.
fn check(source: &str, cond: &Condition, ctx: &PreparedContext, steps: u64) -> Option<Fail> {
    let node = cond.fast.as_ref()?;
    let mut fast = Eval::new(ctx, steps);
    let fast_result = fast.eval(node);
    budget::set(steps);
    let mut cel = Context::with_env(Arc::clone(env::env()));
    cel.set_variable_resolver(ctx);
    let cel_result = Value::resolve_val(&cond.expr, &cel);
    match fast_result {
        Ok(v) => {
            let c = cel_result.unwrap_or_else(|e| {
                panic!("{source}: fast path gave {v:?}, interpreter failed: {e} (steps {steps})")
            });
            let same = with_val(v, |a| a.get_type() == c.get_type() && a.equals(c.as_ref()));
            assert!(same, "{source}: fast path gave {v:?}, interpreter {c:?}");
            assert_eq!(fast.steps, budget::left(), "{source}: budget left differs");
            None
        }
        Err(Fail::Error) => {
            assert!(
                cel_result.is_err(),
                "{source}: fast path failed, interpreter gave {cel_result:?}"
            );
            Some(Fail::Error)
        }
        Err(Fail::Bail) => Some(Fail::Bail),
    }
}

fn rule(condition: String, deny: bool) -> AccessRule {
    AccessRule {
        condition: Some(condition),
        effect: if deny { Effect::Deny } else { Effect::Allow },
        order: None,
        description: None,
        unknown: Default::default(),
    }
}

/// A message with its characters sorted: `cel` prints maps in hash order, which
/// differs between two runs on the same values.
fn sorted(message: &str) -> String {
    let mut chars: Vec<char> = message.chars().collect();
    chars.sort_unstable();
    chars.into_iter().collect()
}

fn normalized(mut d: Decision) -> Decision {
    for e in &mut d.errors {
        e.message = sorted(&e.message);
    }
    d
}

fn outcomes(list: Vec<RuleOutcome>) -> Vec<RuleOutcome> {
    list.into_iter()
        .map(|mut o| {
            if let RuleResult::Error(m) = &o.result {
                o.result = RuleResult::Error(sorted(m));
            }
            o
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3_000, ..ProptestConfig::default() })]

    #[test]
    fn fast_path_agrees_with_the_interpreter(
        choices in prop::collection::vec(any::<u32>(), 0..80),
        contexts in prop::collection::vec(context(), 3),
        small_budget in 0u64..12,
    ) {
        let (source, inside) = condition(&choices);
        // bounds (depth, nesting) can refuse a generated condition: nothing to compare
        let Some(cond) = compiled(&source) else { return Ok(()); };
        prop_assert_eq!(cond.fast.is_some(), inside, "{} lowered: {}", source, cond.fast.is_some());
        for ctx in &contexts {
            let prepared = PreparedContext::new(ctx).unwrap();
            for steps in [crate::limits::DECISION_STEP_BUDGET, small_budget] {
                check(&source, &cond, &prepared, steps);
            }
        }
    }

    #[test]
    fn decisions_are_the_same_with_and_without_the_fast_path(
        rules in prop::collection::vec((prop::collection::vec(any::<u32>(), 0..60), any::<bool>()), 1..4),
        ctx in context(),
    ) {
        let rules: Vec<AccessRule> =
            rules.iter().map(|(choices, deny)| rule(condition(choices).0, *deny)).collect();
        let Ok(fast) = RuleSet::compile(&rules) else { return Ok(()); };
        let mut slow = fast.clone();
        for r in &mut slow.rules {
            if let Some(c) = &mut r.condition {
                c.fast = None;
            }
        }
        let prepared = PreparedContext::new(&ctx).unwrap();
        let (a, b) = (normalized(fast.evaluate(&prepared)), normalized(slow.evaluate(&prepared)));
        prop_assert_eq!(a, b);
        let (a, b) = (fast.explain(&prepared), slow.explain(&prepared));
        prop_assert_eq!(normalized(a.0), normalized(b.0));
        prop_assert_eq!(outcomes(a.1), outcomes(b.1));
    }
}

#[test]
fn the_generator_covers_the_subset() {
    // every construct of the grammar, each inside the subset
    let mut lowered = 0;
    let mut seen_error = false;
    let empty = RequestContext::default();
    let ctx = PreparedContext::new(&empty).unwrap();
    for seed in 0u32..400 {
        let choices: Vec<u32> =
            (0..60u32).map(|i| seed.wrapping_mul(2_654_435_761).rotate_left(i % 31) ^ i).collect();
        let (source, inside) = condition(&choices);
        if let (true, Some(cond)) = (inside, compiled(&source)) {
            assert!(cond.fast.is_some(), "{source}");
            lowered += 1;
            seen_error |= check(&source, &cond, &ctx, 100) == Some(Fail::Error);
        }
    }
    assert!(lowered > 100, "{lowered}");
    assert!(seen_error);
}

#[test]
fn the_bench_cases_are_on_the_fast_path() {
    let file: J = serde_json::from_str(include_str!("../benches/access-cases.json")).unwrap();
    let ctx: RequestContext = serde_json::from_value(file["context"].clone()).unwrap();
    let prepared = PreparedContext::new(&ctx).unwrap();
    for case in file["cases"].as_array().unwrap() {
        let source = case["condition"].as_str().unwrap();
        let cond = compiled(source).unwrap();
        let node = cond.fast.as_ref().unwrap_or_else(|| panic!("{source} not lowered"));
        assert_eq!(Eval::new(&prepared, 100).condition(node), Ok(true), "{source}");
        assert_eq!(check(source, &cond, &prepared, 100), None);
    }
}

#[test]
fn errors_and_absorption_match_known_cases() {
    let ctx: RequestContext = serde_json::from_value(json!({
        "user": {"userType": "internal-user", "roles": []},
        "customData": {"n": 1, "list": [1, "a", null]}
    }))
    .unwrap();
    let p = PreparedContext::new(&ctx).unwrap();
    for (source, expected) in [
        ("customData.missing == 1 || true", Ok(true)),
        ("true || customData.missing == 1", Ok(true)),
        ("customData.missing == 1 && false", Ok(false)),
        ("customData.missing == 1 && true", Err(Fail::Error)),
        ("1 || true", Ok(true)),
        ("'a' && true", Err(Fail::Error)),
        ("user.roles.exists(r, r == 'x')", Ok(false)),
        ("user.roles.all(r, r == 'x')", Ok(true)),
        ("customData.list.exists(v, v > 5)", Err(Fail::Error)),
        ("customData.list.exists(v, v == 'a' || v > 0)", Ok(true)),
        ("customData.list.all(v, v > 5)", Ok(false)),
        ("customData.n < 'a'", Err(Fail::Error)),
        ("customData.n == 1.0 && customData.n == 1u", Ok(true)),
        ("customData.n in [1.0]", Ok(true)),
        ("size(customData.n) == 1", Err(Fail::Error)),
        ("has(customData.n.x)", Err(Fail::Error)),
        ("has(customData.x)", Ok(false)),
        ("has(request.toolId)", Ok(false)),
        ("user.email == 'x'", Err(Fail::Error)),
        ("request.toolId == 'x'", Err(Fail::Error)),
        ("customData.n.startsWith('a')", Err(Fail::Error)),
        ("customData.n ? true : false", Err(Fail::Error)),
        ("'a' in customData.n", Err(Fail::Error)),
        ("1 in customData.list", Ok(true)),
    ] {
        let cond = compiled(source).unwrap();
        let node = cond.fast.as_ref().unwrap_or_else(|| panic!("{source} not lowered"));
        assert_eq!(Eval::new(&p, 100).condition(node), expected, "{source}");
        check(source, &cond, &p, 100);
    }
}
