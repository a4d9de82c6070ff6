//! Call rules (SPEC section 16) and log-only rules (section 15) on the engine: the
//! refund example of the call-time policy, checks against the schema on write, and

use registry_access::{
    AccessRule, ArgType, CallSchema, Effect, Outcome, PreparedContext, ReasonCode, RequestContext,
    RuleMode, RuleSet, ToolCall, validate_call_rules,
};
use serde_json::{Map, Value, json};
use std::sync::Arc;

fn schema() -> CallSchema {
    let mut schema = CallSchema::new();
    schema.function(
        "refund",
        [
            ("amount".to_string(), ArgType::Number),
            ("currency".to_string(), ArgType::String),
            ("customerId".to_string(), ArgType::String),
        ],
    );
    schema
}

/// `condition`, as a call rule of the refund tool, is refused with one error naming
/// `needle` at the condition.
fn assert_refused(condition: &str, needle: &str) {
    let errors = validate_call_rules(&[AccessRule::new(Effect::Deny, Some(condition))], &schema());
    assert_eq!(errors.len(), 1, "{condition}: {errors:?}");
    assert!(errors[0].message.contains(needle), "{condition}: {}", errors[0].message);
    assert_eq!(errors[0].path, "/0/condition");
}

fn rule(id: &str, effect: Effect, condition: Option<&str>, mode: RuleMode) -> AccessRule {
    AccessRule { id: Some(id.into()), mode, ..AccessRule::new(effect, condition) }
}

fn refund_rules() -> Vec<AccessRule> {
    vec![
        rule(
            "cap-refunds",
            Effect::Deny,
            Some("call.arguments.amount > 100.0 && !('refund-admin' in user.roles)"),
            RuleMode::Enforce,
        ),
        rule("usd-only", Effect::Deny, Some("call.arguments.currency != 'USD'"), RuleMode::LogOnly),
        rule("allow", Effect::Allow, None, RuleMode::Enforce),
    ]
}

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn decide(roles: &[&str], amount: Value, currency: &str) -> registry_access::Decision {
    let set = match RuleSet::compile_call(&refund_rules(), Arc::new(schema())) {
        Ok(set) => set,
        Err(e) => panic!("rules compile: {e:?}"),
    };
    let context: RequestContext =
        serde_json::from_value(json!({"user": {"userId": "u1", "roles": roles}}))
            .unwrap_or_default();
    let prepared = PreparedContext::new(&context).unwrap_or_else(|e| panic!("{e:?}"));
    let arguments = args(json!({"amount": amount, "currency": currency, "customerId": "c-1"}));
    set.evaluate_call(
        &prepared,
        &ToolCall { function: "refund", http_method: None, arguments: &arguments },
    )
}

#[test]
fn refund_acceptance() {
    let small = decide(&[], json!(50), "USD");
    assert_eq!((small.effect, small.rule_id.as_deref()), (Effect::Allow, Some("allow")));
    assert_eq!(small.outcome(), Outcome::Allow);

    let big = decide(&[], json!(500), "USD");
    assert_eq!((big.effect, big.rule_id.as_deref()), (Effect::Deny, Some("cap-refunds")));
    assert_eq!(big.reason, ReasonCode::RuleMatch);

    let admin = decide(&["refund-admin"], json!(500), "USD");
    assert_eq!(admin.effect, Effect::Allow);

    let euros = decide(&[], json!(50), "EUR");
    assert_eq!(euros.effect, Effect::Allow);
    assert_eq!(euros.outcome(), Outcome::WouldDeny);
    let would = euros.would_be.as_ref().map(|w| (w.effect, w.rule_id.as_deref()));
    assert_eq!(would, Some((Effect::Deny, Some("usd-only"))));
    assert!(
        euros.log_only.iter().any(|o| o.rule_id.as_deref() == Some("usd-only") && o.would_decide)
    );
}

#[test]
fn integers_of_a_number_parameter_are_doubles() {
    // 50 written without a fraction is still a number: `> 100.0` compares doubles
    assert_eq!(decide(&[], json!(150), "USD").rule_id.as_deref(), Some("cap-refunds"));
    assert_eq!(decide(&[], json!(99.5), "USD").effect, Effect::Allow);
}

#[test]
fn unknown_arguments_name_the_parameters() {
    let rules = [AccessRule::new(Effect::Deny, Some("call.arguments.amout > 1.0"))];
    let errors = validate_call_rules(&rules, &schema());
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].path, "/0/condition");
    for name in ["amount", "currency", "customerId", "did you mean `call.arguments.amount`"] {
        assert!(errors[0].message.contains(name), "{}", errors[0].message);
    }
}

#[test]
fn wrong_types_are_refused() {
    for (condition, declared) in [
        ("call.arguments.amount == 'x'", "a number"),
        ("'x' == call.arguments.amount", "a number"),
        ("call.arguments.currency > 3", "a string"),
        ("call.arguments.currency == true", "a string"),
    ] {
        assert_refused(condition, declared);
    }
    for ok in [
        "call.arguments.amount == 5",
        "call.arguments.amount >= 10.5",
        "call.arguments.currency in ['USD', 'EUR']",
        "call.function == 'refund' && call.arguments.customerId.startsWith('c-')",
        "has(call.arguments.amount)",
    ] {
        let errors = validate_call_rules(&[AccessRule::new(Effect::Deny, Some(ok))], &schema());
        assert!(errors.is_empty(), "{ok}: {errors:?}");
    }
}

#[test]
fn unknown_functions_are_refused() {
    let errors = validate_call_rules(
        &[AccessRule::new(Effect::Deny, Some("call.function == 'refnd'"))],
        &schema(),
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].message.contains("did you mean 'refund'"), "{}", errors[0].message);
}

#[test]
fn access_rules_cannot_read_call() {
    let errors = registry_access::validate_rules(&[AccessRule::new(
        Effect::Deny,
        Some("call.arguments.amount > 1.0"),
    )]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].message.contains("only in call rules"), "{}", errors[0].message);
}

#[test]
fn rule_ids_are_checked() {
    let mut rules = vec![rule("a", Effect::Allow, None, RuleMode::Enforce); 2];
    rules.push(rule("Bad_Id", Effect::Allow, None, RuleMode::Enforce));
    let errors = registry_access::validate_rules(&rules);
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["/1/id", "/2/id"], "{errors:?}");
}

#[test]
fn a_log_only_access_rule_changes_nothing() {
    let rules = [rule(
        "try-deny-externals",
        Effect::Deny,
        Some("user.userType == 'external'"),
        RuleMode::LogOnly,
    )];
    let set = RuleSet::compile(&rules).unwrap_or_default();
    let context: RequestContext =
        serde_json::from_value(json!({"user": {"userType": "external"}})).unwrap_or_default();
    let prepared = PreparedContext::new(&context).unwrap_or_else(|e| panic!("{e:?}"));
    let decision = set.evaluate(&prepared);
    assert_eq!((decision.effect, decision.reason), (Effect::Allow, ReasonCode::NoRules));
    assert_eq!(decision.outcome(), Outcome::WouldDeny);
    assert_eq!(decision.would_be.and_then(|w| w.rule_id).as_deref(), Some("try-deny-externals"));
}

fn session_rules() -> Vec<AccessRule> {
    vec![
        // a total sums signed amounts: without this, a negative amount refills the budget
        rule(
            "refund-positive",
            Effect::Deny,
            Some("!(call.arguments.amount > 0.0)"),
            RuleMode::Enforce,
        ),
        rule(
            "refund-budget",
            Effect::Deny,
            Some("session.total['refund.amount'] + call.arguments.amount > 500.0"),
            RuleMode::Enforce,
        ),
        rule("few-calls", Effect::Deny, Some("session.callsOf['refund'] >= 5"), RuleMode::Enforce),
        rule("allow", Effect::Allow, None, RuleMode::Enforce),
    ]
}

#[test]
fn session_rules_see_the_state_before_the_call() {
    let set = RuleSet::compile_call(&session_rules(), Arc::new(schema()))
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(set.session_totals(), ["refund.amount"]);
    assert!(set.reads_session());
    let context = RequestContext::default();
    let prepared = PreparedContext::new(&context).unwrap_or_else(|e| panic!("{e:?}"));
    let arguments = args(json!({"amount": 200, "currency": "USD", "customerId": "c"}));
    let call = ToolCall { function: "refund", http_method: None, arguments: &arguments };
    let decide = |total: f64, calls: u64| {
        let totals = std::collections::BTreeMap::from([("refund.amount".to_string(), total)]);
        let calls_of = std::collections::BTreeMap::from([("refund".to_string(), calls)]);
        let session = registry_access::SessionView {
            calls,
            calls_of: Some(&calls_of),
            totals: Some(&totals),
            age_ms: 1_000,
        };
        set.evaluate_call_in(&prepared, &call, session)
    };
    assert_eq!(decide(0.0, 0).effect, Effect::Allow);
    assert_eq!(decide(200.0, 1).effect, Effect::Allow);
    assert_eq!(decide(400.0, 2).rule_id.as_deref(), Some("refund-budget"));
    assert_eq!(decide(0.0, 5).rule_id.as_deref(), Some("few-calls"));
    // without a session, rules see an empty one
    assert_eq!(set.evaluate_call(&prepared, &call).effect, Effect::Allow);
    let denied = decide(400.0, 2);
    assert!(set.decided_on_session(&denied));
}

#[test]
fn session_reads_are_checked_against_the_schema() {
    for (condition, needle) in [
        ("session.total['refund.currency'] > 1.0", "only numeric arguments"),
        ("session.total['refnd.amount'] > 1.0", "not a function"),
        ("session.total['refund.amout'] > 1.0", "no parameter `amout`"),
        ("session.callsOf['lookup'] > 1", "not a function"),
        ("session.total[call.function] > 1.0", "string literal"),
        ("session.count > 1", "has no field `count`"),
    ] {
        assert_refused(condition, needle);
    }
    let ok = "session.age > duration('15m') || session.calls > 20";
    assert!(validate_call_rules(&[AccessRule::new(Effect::Deny, Some(ok))], &schema()).is_empty());
}

#[test]
fn a_decision_without_session_rules_does_not_depend_on_the_session() {
    let mut rules =
        vec![rule("cap", Effect::Deny, Some("call.arguments.amount > 100.0"), RuleMode::Enforce)];
    rules.extend(session_rules());
    let set = RuleSet::compile_call(&rules, Arc::new(schema())).unwrap_or_else(|e| panic!("{e:?}"));
    let context = RequestContext::default();
    let prepared = PreparedContext::new(&context).unwrap_or_else(|e| panic!("{e:?}"));
    let arguments = args(json!({"amount": 200, "currency": "USD", "customerId": "c"}));
    let call = ToolCall { function: "refund", http_method: None, arguments: &arguments };
    let denied = set.evaluate_call(&prepared, &call);
    assert_eq!(denied.rule_id.as_deref(), Some("cap"));
    assert!(!set.decided_on_session(&denied), "decided before any session rule");
}
