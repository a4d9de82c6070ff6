#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Adversarial conditions: bounded at compile time, then by the per-decision step
//! budget at run time, which fails closed.

use registry_access::{AccessRule, Effect, PreparedContext, ReasonCode, RequestContext, RuleSet};
use serde_json::json;

fn rule(effect: Effect, condition: &str) -> AccessRule {
    AccessRule::new(effect, Some(condition))
}

fn big_context() -> PreparedContext<'static> {
    let list: Vec<String> = (0..64).map(|i| format!("v{i}")).collect();
    let ctx: RequestContext = serde_json::from_value(json!({
        "user": {"roles": list},
        "customData": {"a": list, "b": list}
    }))
    .unwrap();
    PreparedContext::new(&ctx).unwrap().into_owned()
}

/// A literal list of `n` ints.
fn literal(n: usize) -> String {
    format!("[{}]", vec!["1"; n].join(","))
}

#[test]
fn nested_loops_over_large_lists_exceed_the_budget_and_fail_closed() {
    let prepared = big_context();
    // 64 x (64 x 3 + ...) steps: under budget
    let fine = "user.roles.exists(r, customData.a.exists(a, a == r + 'x'))";
    let d = RuleSet::compile(&[rule(Effect::Allow, fine)]).unwrap().evaluate(&prepared);
    assert_eq!(d.reason, ReasonCode::NoMatch);
    assert!(d.errors.is_empty(), "{d:?}");

    // ~1000 x 1000 iterations: over budget
    let big = literal(900);
    let adversarial = format!("{big}.all(x, {big}.all(y, x == y))");
    assert!(adversarial.len() <= 2_048 * 2);
    let cond = format!("{}.all(x, {}.all(y, x == y))", literal(500), literal(500));
    assert!(cond.chars().count() <= 2_048);
    let allow = RuleSet::compile(&[rule(Effect::Allow, &cond)]).unwrap();
    let d = allow.evaluate(&prepared);
    assert_eq!((d.effect, d.reason), (Effect::Deny, ReasonCode::NoMatch), "{d:?}");
    assert!(d.errors[0].message.contains("budget exceeded"), "{d:?}");

    let deny_first = RuleSet::compile(&[
        rule(Effect::Deny, &cond),
        AccessRule { condition: None, ..rule(Effect::Allow, "true") },
    ])
    .unwrap();
    let d = deny_first.evaluate(&prepared);
    assert_eq!((d.effect, d.reason, d.rule_index), (Effect::Deny, ReasonCode::Error, Some(0)));
}

#[test]
fn the_budget_is_per_decision_not_per_rule() {
    let prepared = big_context();
    // each rule alone is under budget (64 x 64 x ~5 = ~20k steps); six of them are not
    let heavy = "user.roles.exists(r, customData.a.exists(a, a == r + 'x'))";
    let rules: Vec<AccessRule> = (0..6).map(|_| rule(Effect::Allow, heavy)).collect();
    let set = RuleSet::compile(&rules).unwrap();
    let d = set.evaluate(&prepared);
    assert_eq!(d.effect, Effect::Deny);
    assert!(!d.errors.is_empty(), "{d:?}");
    assert!(d.errors.iter().all(|e| e.message.contains("budget")), "{d:?}");
    // and it is reset for the next decision
    let one = RuleSet::compile(&rules[..1]).unwrap().evaluate(&prepared);
    assert!(one.errors.is_empty(), "{one:?}");
}

#[test]
fn map_and_filter_still_work_under_the_guard() {
    let prepared = big_context();
    for ok in [
        "user.roles.map(r, r + '!').exists(r, r == 'v3!')",
        "size(customData.a.filter(a, a.startsWith('v1'))) == 11",
        "customData.b.exists_one(b, b == 'v0')",
        "[1, 2, 3].map(x, x * 2) == [2, 4, 6]",
        "{'k': 1}.all(k, k == 'k')",
    ] {
        let d = RuleSet::compile(&[rule(Effect::Allow, ok)]).unwrap().evaluate(&prepared);
        assert_eq!(d.reason, ReasonCode::RuleMatch, "{ok}: {d:?}");
    }
}

#[test]
fn oversized_contexts_are_rejected_with_paths() {
    let roles: Vec<String> = (0..65).map(|i| format!("r{i}")).collect();
    let mut deep = json!(1);
    for _ in 0..9 {
        deep = json!([deep]);
    }
    let ctx: RequestContext = serde_json::from_value(json!({
        "user": {"roles": roles, "email": "e".repeat(5_000)},
        "customData": {"deep": deep, "a/b": (0..70).collect::<Vec<_>>()}
    }))
    .unwrap();
    let errors = PreparedContext::new(&ctx).unwrap_err();
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert!(paths.contains(&"/user/roles"), "{paths:?}");
    assert!(paths.contains(&"/user/email"), "{paths:?}");
    assert!(paths.contains(&"/customData/a~1b"), "{paths:?}");
    assert!(paths.iter().any(|p| p.starts_with("/customData/deep/0/0")), "{paths:?}");
}
