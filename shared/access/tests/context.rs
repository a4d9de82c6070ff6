#![allow(clippy::unwrap_used, clippy::expect_used)]
//! What conditions see of the request context: every declared variable and field,
//! per-tool ids, absent fields (errors, fail-closed), shadowing, serde of the body.

use registry_access::{AccessRule, Effect, PreparedContext, ReasonCode, RequestContext, RuleSet};
use serde_json::json;

fn decide(condition: &str, prepared: &PreparedContext) -> (ReasonCode, Vec<String>) {
    let set = RuleSet::compile(&[AccessRule::new(Effect::Allow, Some(condition))]).unwrap();
    let d = set.evaluate(prepared);
    (d.reason, d.errors.into_iter().map(|e| e.message).collect())
}

fn context() -> RequestContext {
    serde_json::from_value(json!({
        "user": {"userId": "u-1", "userType": "internal-user", "email": "a@example.com", "roles": ["admin"]},
        "customData": {"tier": "premium", "nested": {"deep": {"n": 3, "f": 1.5, "ok": true, "nil": null}}, "big": 18446744073709551615u64},
        "account": {"accountId": "acct-1", "type": "retailer", "organizationId": "org-1"},
        "request": {"region": "us-west-2", "time": "2024-05-01T10:00:00+02:00", "agentId": "agent-1"}
    }))
    .unwrap()
}

#[test]
fn every_declared_field_is_visible() {
    let ctx = context();
    let p = PreparedContext::new(&ctx).unwrap();
    for cond in [
        "user.userId == 'u-1' && user.userType == 'internal-user' && user.email.endsWith('@example.com')",
        "'admin' in user.roles && size(user.roles) == 1",
        "account.accountId == 'acct-1' && account.type == 'retailer' && account.organizationId == 'org-1'",
        "request.region == 'us-west-2' && request.agentId == 'agent-1'",
        "request.time == timestamp('2024-05-01T08:00:00Z')",
        "customData.nested.deep.n == 3 && customData.nested.deep.f > 1.0 && customData.nested.deep.ok",
        "customData.nested.deep.nil == null && customData.big == 18446744073709551615u",
        "customData['tier'] == 'premium' && customData.nested['deep'].n == 3",
        "has(customData.tier) && !has(customData.missing) && has(user.email) && has(customData.nested.deep)",
        "has(request.agentId) && !has(request.toolId) && request.region in ['us-west-2']",
        "user.roles.exists(r, r == 'admin' && user.userType == 'internal-user')",
        "[{'user': 1}].exists(user, user.user == 1)",
        "size(customData) == 3 && size(user) == 4",
    ] {
        assert_eq!(decide(cond, &p), (ReasonCode::RuleMatch, vec![]), "{cond}");
    }
}

#[test]
fn absent_fields_are_errors_that_fail_closed() {
    let ctx: RequestContext = serde_json::from_value(json!({})).unwrap();
    let p = PreparedContext::new(&ctx).unwrap();
    for cond in [
        "user.userType == 'x'",
        "customData.a.b == 1",
        "request.toolId == 't'",
        "'a' in user.roles",
    ] {
        let (reason, errors) = decide(cond, &p);
        assert_eq!(reason, ReasonCode::NoMatch, "{cond}");
        assert_eq!(errors.len(), 1, "{cond}");
        assert!(
            errors[0].contains("no such field") || errors[0].contains("No such key"),
            "{cond}: {errors:?}"
        );
    }
    // an absent time is the evaluation time
    assert_eq!(
        decide("request.time > timestamp('2020-01-01T00:00:00Z')", &p).0,
        ReasonCode::RuleMatch
    );
}

/// Without `request.time`, the current time is read when a condition first needs it and
/// is then the one time of the context: in `request.time` and in the whole `request`
/// map, whichever is read first, from the typed context and from JSON alike.
#[test]
fn an_absent_time_is_one_current_time_wherever_it_is_read() {
    let typed: RequestContext =
        serde_json::from_value(json!({"request": {"region": "r"}})).unwrap();
    let body = br#"{"request": {"region": "r"}}"#;
    for p in [PreparedContext::new(&typed).unwrap(), PreparedContext::from_json(body).unwrap()] {
        for cond in [
            // the field
            "has(request.time) && request.time > timestamp('2020-01-01T00:00:00Z')",
            // the field and the whole map (read at different moments)
            "request['time'] == request.time && 'time' in request && size(request) == 2",
            // the field again, after the map fixed the time
            "request.time < timestamp('2100-01-01T00:00:00Z')",
        ] {
            assert_eq!(decide(cond, &p), (ReasonCode::RuleMatch, vec![]), "{cond}");
        }
    }
    // a time the context gives is left alone, and is in the map once
    let given = br#"{"request": {"time": "2024-05-01T08:00:00Z"}}"#;
    let p = PreparedContext::from_json(given).unwrap();
    for cond in [
        "request.time == timestamp('2024-05-01T08:00:00Z') && has(request.time)",
        "request['time'] == timestamp('2024-05-01T08:00:00Z') && size(request) == 1",
    ] {
        assert_eq!(decide(cond, &p), (ReasonCode::RuleMatch, vec![]), "{cond}");
    }
}

#[test]
fn tool_and_agent_ids_change_per_tool_without_rebuilding() {
    let ctx = context();
    let mut p = PreparedContext::new(&ctx).unwrap();
    let cond = "request.toolId == 'weather@1' && request.agentId == 'agent-2'";
    assert_eq!(decide(cond, &p).0, ReasonCode::NoMatch);
    p.set_tool_id(Some("weather@1"));
    p.set_agent_id(Some("agent-2"));
    assert_eq!(decide(cond, &p).0, ReasonCode::RuleMatch);
    assert_eq!(
        decide("request.toolId == 'weather@1' && request.region == 'us-west-2'", &p).0,
        ReasonCode::RuleMatch
    );
    assert_eq!(
        decide("size(request) == 4 && request['toolId'] == 'weather@1'", &p).0,
        ReasonCode::RuleMatch
    );
    p.set_tool_id(Some("news@2"));
    assert_eq!(decide(cond, &p).0, ReasonCode::NoMatch);
    p.set_tool_id(None);
    assert_eq!(decide("!has(request.toolId)", &p).0, ReasonCode::RuleMatch);
}

#[test]
fn the_body_is_camel_case_and_rejects_unknown_fields() {
    let ctx = context();
    let back: RequestContext = serde_json::from_value(serde_json::to_value(&ctx).unwrap()).unwrap();
    assert_eq!(back, ctx);
    assert!(serde_json::from_value::<RequestContext>(json!({"usr": {}})).is_err());
    assert!(serde_json::from_value::<RequestContext>(json!({"user": {"usertype": "x"}})).is_err());
    assert!(
        serde_json::from_value::<RequestContext>(json!({"request": {"time": "yesterday"}}))
            .is_err()
    );
    assert!(serde_json::from_value::<RequestContext>(json!({"user": {"roles": "admin"}})).is_err());
}
