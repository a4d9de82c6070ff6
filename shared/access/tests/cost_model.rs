#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The cost model bounds every decision, whatever the condition and the context: the
//! attacks of the adversarial review, against the largest context the limits allow,
//! end in a budget error, which never widens access (an erroring allow does not match;
//! an erroring deny does). Outcomes are asserted, not times: the figures are in
//! `benches/access.rs` (`adversarial/*`) and docs/limits.md.

use registry_access::limits::{MAX_CONTEXT_COLLECTION, MAX_CONTEXT_STRING_BYTES};
use registry_access::{AccessRule, Effect, PreparedContext, ReasonCode, RequestContext, RuleSet};
use serde_json::{Value, json};

fn rule(effect: Effect, condition: &str) -> AccessRule {
    AccessRule::new(effect, Some(condition))
}

/// The largest context: 4 KiB strings, lists of 64 of them.
fn largest_context() -> PreparedContext<'static> {
    let s = "a".repeat(MAX_CONTEXT_STRING_BYTES);
    let list = vec![s.clone(); MAX_CONTEXT_COLLECTION];
    prepared(json!({
        "user": {"userId": s, "roles": list},
        "customData": {"s": s, "l": list, "p": "(a+)+$", "items": list}
    }))
}

/// `value` read as a request context and prepared.
fn prepared(value: Value) -> PreparedContext<'static> {
    let ctx: RequestContext = serde_json::from_value(value).unwrap();
    PreparedContext::new(&ctx).unwrap().into_owned()
}

/// Every attack: as an allow it does not match, as a deny it denies, both with a
/// budget error in the decision.
fn assert_bounded(condition: &str) {
    let ctx = largest_context();
    let allow = RuleSet::compile(&[rule(Effect::Allow, condition)]).unwrap();
    let d = allow.evaluate(&ctx);
    assert_eq!((d.effect, d.reason), (Effect::Deny, ReasonCode::NoMatch), "{condition}: {d:?}");
    assert!(d.errors.iter().any(|e| e.message.contains("budget exceeded")), "{condition}: {d:?}");
    let deny = RuleSet::compile(&[
        rule(Effect::Deny, condition),
        AccessRule { condition: None, ..rule(Effect::Allow, "true") },
    ])
    .unwrap();
    let d = deny.evaluate(&ctx);
    assert_eq!(
        (d.effect, d.reason, d.rule_index),
        (Effect::Deny, ReasonCode::Error, Some(0)),
        "{condition}"
    );
}

#[test]
fn doubling_a_string_through_map_runs_out_of_memory_budget() {
    let doubling = format!("size([customData.s]{}) > 0", ".map(x, x + x)".repeat(20));
    assert_bounded(&doubling);
    let concat = format!("size({}) > 0", vec!["customData.s"; 100].join(" + "));
    // a long chain of + is refused at compile time (depth), or bounded
    match RuleSet::compile(&[rule(Effect::Allow, &concat)]) {
        Ok(_) => assert_bounded(&concat),
        Err(errors) => assert!(format!("{errors:?}").contains("deep"), "{errors:?}"),
    }
}

#[test]
fn growing_lists_run_out_of_memory_budget() {
    assert_bounded(
        "size(customData.l.map(x, customData.l).map(x, x + x).map(x, x + x).map(x, x + x)) > 0",
    );
    assert_bounded("size(customData.l.map(a, customData.l.map(b, a + b))) > 0");
}

#[test]
fn scanning_large_values_runs_out_of_steps() {
    assert_bounded(
        "customData.l.exists(a, customData.l.exists(b, (a + b + a + b).contains(b + 'x')))",
    );
    assert_bounded("customData.l.all(a, customData.l.all(b, size(a + b + a + b) > 0))");
    assert_bounded("customData.l.exists(a, customData.l.exists(b, (a + b).matches('^(a|b)*c$')))");
}

#[test]
fn patterns_from_request_data_and_invalid_patterns_are_refused_on_write() {
    let errors = RuleSet::compile(&[rule(
        Effect::Allow,
        "customData.items.exists(i, i.matches(customData.p))",
    )])
    .unwrap_err();
    let text = format!("{errors:?}");
    assert!(text.contains("must be a string literal") && text.contains("1:"), "{text}");
    let errors = RuleSet::compile(&[rule(Effect::Allow, "user.userId.matches('(')")]).unwrap_err();
    let text = format!("{errors:?}");
    assert!(text.contains("invalid regular expression") && text.contains("1:"), "{text}");
    for huge in ["(\\\\w{100}){100}", "(((a{100}){100}){100})", "[\\\\p{L}]{500}"] {
        let huge = format!("user.userId.matches('{huge}')");
        let text = format!("{:?}", RuleSet::compile(&[rule(Effect::Allow, &huge)]).unwrap_err());
        assert!(text.contains("compiles to more than 4 MiB"), "{huge}: {text}");
    }
    // The compile work of one condition is bounded: past 16 MiB tried, the remaining
    // patterns are refused without being compiled.
    let storm = ["user.userId.matches('\\\\w{300}')"; 8].join(" || ");
    let text = format!("{:?}", RuleSet::compile(&[rule(Effect::Allow, &storm)]).unwrap_err());
    assert!(text.contains("compile to more than 16 MiB in all"), "{text}");
}

/// Patterns people write every day compile, Unicode classes included, and match.
#[test]
fn everyday_patterns_are_accepted() {
    let ctx = prepared(json!({
        "user": {"userId": "Łucja", "email": "ana_1@example.org"}
    }));
    for condition in [
        "user.email.matches('^\\\\w+@\\\\w+\\\\.\\\\w{2,10}$')",
        "user.email.matches('^[\\\\w.+-]+@[\\\\w-]+(\\\\.[\\\\w-]+)*\\\\.\\\\w{2,24}$')",
        "user.userId.matches('^\\\\p{L}+$')",
        "user.userId.matches('^\\\\p{Lu}\\\\p{Ll}{2,30}$')",
        "user.userId.matches('^\\\\w{1,64}$')",
    ] {
        let set = RuleSet::compile(&[rule(Effect::Allow, condition)])
            .unwrap_or_else(|e| panic!("{condition}: {e:?}"));
        let d = set.evaluate(&ctx);
        assert_eq!((d.effect, d.reason), (Effect::Allow, ReasonCode::RuleMatch), "{condition}");
    }
}

#[test]
fn ordinary_conditions_are_untouched() {
    let ctx = prepared(json!({
        "user": {"userId": "u-1", "email": "dana@example.com", "roles": ["analyst"]},
        "customData": {"tier": "premium", "tags": ["a", "b"]}
    }));
    for condition in [
        "user.email.matches('^[a-z]+@example\\\\.com$')",
        "size(customData.tags.map(t, t + '-x')) == 2",
        "customData.tags.filter(t, t == 'a').size() == 1",
        "(customData.tier + '-plan').startsWith('premium')",
        "size(user.userId) == 3",
    ] {
        let d = RuleSet::compile(&[rule(Effect::Allow, condition)]).unwrap().evaluate(&ctx);
        assert_eq!(
            (d.effect, d.reason),
            (Effect::Allow, ReasonCode::RuleMatch),
            "{condition}: {d:?}"
        );
    }
}

/// One dry run may ask for at most 16 KiB of condition text: the work per request.
#[test]
fn a_dry_run_caps_the_work_it_asks_for() {
    use registry_access::{DryRun, dry_run, limits::MAX_DRY_RUN_CHARS};
    let condition = format!("user.userId == '{}'", "x".repeat(2_000));
    let rules: Vec<AccessRule> = (0..9).map(|_| rule(Effect::Allow, &condition)).collect();
    assert!(rules.len() * condition.len() > MAX_DRY_RUN_CHARS);
    match dry_run(&rules, &RequestContext::default()) {
        DryRun::InvalidRules { errors } => {
            assert_eq!(errors[0].path, "");
            assert!(errors[0].message.contains("per dry run"), "{errors:?}");
        }
        other => panic!("expected the cap, got {other:?}"),
    }
    assert!(matches!(dry_run(&rules[..2], &RequestContext::default()), DryRun::Evaluated { .. }));
}

/// The same condition compiled by many threads at once gives the same result to each
/// (the compile pool and the shared cache of compiled conditions).
#[test]
fn concurrent_compiles_agree() {
    let handles: Vec<_> = (0..16)
        .map(|i| {
            std::thread::spawn(move || {
                let c = format!("user.userId == 'u{}' || size(customData.l) > {i}", i % 4);
                RuleSet::compile(&[rule(Effect::Allow, &c)]).map(|s| s.len())
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().unwrap(), 1);
    }
}
