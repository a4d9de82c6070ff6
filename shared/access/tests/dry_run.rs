#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The `/access/evaluate` dry run, thread-safety of the shared types, and the worst
//! shapes the limits still accept.

use registry_access::{
    AccessRule, DryRun, Effect, PreparedContext, RequestContext, RuleSet, dry_run,
};
use serde_json::json;

fn rules(v: serde_json::Value) -> Vec<AccessRule> {
    serde_json::from_value(v).unwrap()
}

#[test]
fn dry_run_reports_compile_errors_context_errors_or_the_decision() {
    let ctx: RequestContext =
        serde_json::from_value(json!({"user": {"userType": "internal-user"}})).unwrap();

    let bad =
        dry_run(&rules(json!([{"effect": "allow", "condition": "user.userType = 'x'"}])), &ctx);
    let DryRun::InvalidRules { errors } = &bad else { panic!("{bad:?}") };
    assert_eq!(errors[0].path, "/0/condition");
    assert_eq!(serde_json::to_value(&bad).unwrap()["status"], "invalidRules");

    let roles: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    let big: RequestContext = serde_json::from_value(json!({"user": {"roles": roles}})).unwrap();
    let too_big = dry_run(&rules(json!([{"effect": "allow"}])), &big);
    let DryRun::InvalidContext { errors } = &too_big else { panic!("{too_big:?}") };
    assert_eq!(errors[0].path, "/user/roles");

    let list = rules(json!([
        {"effect": "allow", "condition": "user.userType == 'external'"},
        {"effect": "deny", "condition": "customData.flag", "order": 5},
        {"effect": "allow", "condition": "user.userType == 'internal-user'", "order": 1},
        {"effect": "deny"}
    ]));
    let ok = dry_run(&list, &ctx);
    let value = serde_json::to_value(&ok).unwrap();
    assert_eq!(value["status"], "evaluated");
    assert_eq!(value["decision"]["effect"], "allow");
    assert_eq!(value["decision"]["reason"], "RULE_MATCH");
    assert_eq!(value["decision"]["ruleIndex"], 2);
    assert_eq!(value["decision"]["ruleOrder"], 1);
    let order: Vec<u64> = value["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleIndex"].as_u64().unwrap())
        .collect();
    assert_eq!(order, vec![2, 1, 0, 3]);
    assert_eq!(value["rules"][0]["result"], "matched");
    assert_eq!(value["rules"][0]["decisive"], true);
    assert_eq!(value["rules"][1]["result"], "error");
    assert_eq!(value["rules"][2]["result"], "notMatched");
    assert_eq!(value["rules"][3]["result"], "matched");
    assert_eq!(value["rules"][3]["decisive"], false);
}

#[test]
fn shared_types_are_thread_safe() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<RuleSet>();
    send_sync::<std::sync::Arc<RuleSet>>();
    send::<PreparedContext>();
}

#[test]
fn the_largest_accepted_conditions_evaluate_without_overflowing_a_small_stack() {
    // as long and as deep as the limits allow, evaluated on a 512 KiB stack (debug build)
    let chain = vec!["customData.x==1"; 100].join("||");
    let long_sum = format!("{} == 46", vec!["1"; 46].join(" + "));
    let nested =
        format!("{}customData.x == 1{}", "(customData.x == 1 && ".repeat(12), ")".repeat(12));
    let lists = format!("size({}1{}) == 1", "[".repeat(11), "]".repeat(11));
    let mixed = format!("{} == 21 && {}", vec!["1"; 21].join(" + "), nested);
    for condition in [chain, long_sum, nested, lists, mixed] {
        let set = RuleSet::compile(&[AccessRule::new(Effect::Allow, Some(&condition))])
            .unwrap_or_else(|e| panic!("{condition}: {e:?}"));
        let d = std::thread::Builder::new()
            .stack_size(512 * 1024)
            .spawn(move || {
                let ctx: RequestContext =
                    serde_json::from_value(json!({"customData": {"x": 1}})).unwrap();
                set.evaluate(&PreparedContext::new(&ctx).unwrap())
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(d.is_allowed(), "{d:?}");
    }
    // deeper is refused at compile time, not by a crash
    for deep in [
        format!("{}true{}", "(".repeat(200), ")".repeat(200)),
        format!("{} == 400", vec!["1"; 400].join(" + ")),
        format!("{}true{}", "[".repeat(13), "]".repeat(13)),
    ] {
        let errors = registry_access::validate_rules(&rules(
            json!([{"effect": "allow", "condition": deep}]),
        ));
        assert!(!errors.is_empty());
    }
}
