#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Every combination of {allow, deny} x {true, false, error} x order for up to three
//! rules, against a tiny reference evaluator written from SPEC section 4.

use registry_access::{AccessRule, Effect, PreparedContext, ReasonCode, RequestContext, RuleSet};
use serde_json::json;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cond {
    True,
    False,
    Error,
    Absent,
}

fn source(c: Cond) -> Option<&'static str> {
    match c {
        Cond::True => Some("user.userType == 'internal-user'"),
        Cond::False => Some("user.userType == 'external-user'"),
        // missing key: a run-time error
        Cond::Error => Some("customData.missing == 1"),
        Cond::Absent => None,
    }
}

/// SPEC section 4, as plainly as possible.
fn reference(
    rules: &[(Effect, Cond, Option<i64>)],
) -> (Effect, ReasonCode, Option<usize>, Vec<usize>) {
    if rules.is_empty() {
        return (Effect::Allow, ReasonCode::NoRules, None, vec![]);
    }
    let mut idx: Vec<usize> = (0..rules.len()).collect();
    // ordered ascending first, then unordered; ties by list position
    idx.sort_by_key(|&i| match rules[i].2 {
        Some(o) => (0, o, i),
        None => (1, 0, i),
    });
    let mut errors = vec![];
    for i in idx {
        let (effect, cond, _) = rules[i];
        match cond {
            Cond::True | Cond::Absent => return (effect, ReasonCode::RuleMatch, Some(i), errors),
            Cond::False => {}
            Cond::Error => {
                errors.push(i);
                if effect == Effect::Deny {
                    return (Effect::Deny, ReasonCode::Error, Some(i), errors);
                }
            }
        }
    }
    (Effect::Deny, ReasonCode::NoMatch, None, errors)
}

fn choices() -> Vec<(Effect, Cond, Option<i64>)> {
    let mut out = vec![];
    for effect in [Effect::Allow, Effect::Deny] {
        for cond in [Cond::True, Cond::False, Cond::Error] {
            for order in [None, Some(1), Some(2)] {
                out.push((effect, cond, order));
            }
        }
    }
    // an absent condition always matches
    out.push((Effect::Allow, Cond::Absent, Some(1)));
    out.push((Effect::Deny, Cond::Absent, None));
    out
}

#[test]
fn every_combination_matches_the_reference() {
    let ctx: RequestContext = serde_json::from_value(json!({
        "user": {"userType": "internal-user"}
    }))
    .unwrap();
    let prepared = PreparedContext::new(&ctx).unwrap();
    let choices = choices();
    let mut lists: Vec<Vec<(Effect, Cond, Option<i64>)>> = vec![vec![]];
    for n in 1..=3 {
        let mut next = vec![];
        for list in lists.iter().filter(|l| l.len() == n - 1) {
            for c in &choices {
                let mut l = list.clone();
                l.push(*c);
                next.push(l);
            }
        }
        lists.extend(next);
    }
    assert_eq!(lists.len(), 1 + 20 + 400 + 8000);
    for list in lists {
        let rules: Vec<AccessRule> = list
            .iter()
            .map(|&(effect, cond, order)| AccessRule {
                order,
                ..AccessRule::new(effect, source(cond))
            })
            .collect();
        let set = RuleSet::compile(&rules).unwrap();
        let got = set.evaluate(&prepared);
        let (effect, reason, index, errors) = reference(&list);
        let ctx = format!("{list:?} -> {got:?}");
        assert_eq!(got.effect, effect, "{ctx}");
        assert_eq!(got.reason, reason, "{ctx}");
        assert_eq!(got.rule_index, index, "{ctx}");
        assert_eq!(got.rule_order, index.and_then(|i| list[i].2), "{ctx}");
        let got_errors: Vec<usize> = got.errors.iter().map(|e| e.rule_index).collect();
        assert_eq!(got_errors, errors, "{ctx}");
        // explain decides the same, and reports every rule
        let (explained, outcomes) = set.explain(&prepared);
        assert_eq!(explained.effect, got.effect, "{ctx}");
        assert_eq!(explained.rule_index, got.rule_index, "{ctx}");
        assert_eq!(outcomes.len(), list.len(), "{ctx}");
        assert_eq!(
            outcomes.iter().filter(|o| o.decisive).count(),
            usize::from(index.is_some()),
            "{ctx}"
        );
    }
}

#[test]
fn a_non_bool_result_is_an_error_that_never_widens_access() {
    let ctx: RequestContext = serde_json::from_value(json!({"user": {"userType": "x"}})).unwrap();
    let prepared = PreparedContext::new(&ctx).unwrap();
    let rule =
        |effect, order| AccessRule { order, ..AccessRule::new(effect, Some("user.userType")) };
    let allow = RuleSet::compile(&[rule(Effect::Allow, None)]).unwrap().evaluate(&prepared);
    assert_eq!((allow.effect, allow.reason), (Effect::Deny, ReasonCode::NoMatch));
    assert!(allow.errors[0].message.contains("instead of bool"), "{allow:?}");
    let deny = RuleSet::compile(&[
        rule(Effect::Deny, None),
        AccessRule { condition: None, ..rule(Effect::Allow, None) },
    ])
    .unwrap()
    .evaluate(&prepared);
    assert_eq!(
        (deny.effect, deny.reason, deny.rule_index),
        (Effect::Deny, ReasonCode::Error, Some(0))
    );
}
