#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A corpus of bad conditions (SQL-isms, undeclared variables, syntax errors, bounds),
//! each rejected at its path with a position and a hint.

use registry_access::{AccessRule, Effect, validate_rules};

fn rule(condition: &str) -> AccessRule {
    AccessRule::new(Effect::Allow, Some(condition))
}

/// (condition, text the message must contain)
const CORPUS: &[(&str, &str)] = &[
    // SQL-isms: the message carries the CEL rewrite
    (
        "user.userType = 'internal-user' AND customData.tier = 'premium'",
        "Suggested CEL: user.userType == 'internal-user' && customData.tier == 'premium'",
    ),
    ("user.userType = 'internal-user'", "Suggested CEL: user.userType == 'internal-user'"),
    ("user.userType <> 'external'", "Suggested CEL: user.userType != 'external'"),
    (
        "user.email == 'a' OR user.email == 'b'",
        "Suggested CEL: user.email == 'a' || user.email == 'b'",
    ),
    (
        "user.email == 'a' and user.userType == 'b'",
        "Suggested CEL: user.email == 'a' && user.userType == 'b'",
    ),
    ("NOT user.userType == 'x'", "`NOT`"),
    (
        "account.type IN ('retailer', 'partner')",
        "Suggested CEL: account.type in ['retailer', 'partner']",
    ),
    (
        "account.type in ('retailer', 'partner')",
        "Suggested CEL: account.type in ['retailer', 'partner']",
    ),
    (
        "account.type NOT IN ('retailer', 'partner')",
        "Suggested CEL: !(account.type in ['retailer', 'partner'])",
    ),
    ("user.email IS NULL", "Suggested CEL: user.email == null"),
    ("user.email IS NOT NULL", "Suggested CEL: user.email != null"),
    ("request.region = 'us-west-2' OR request.region = 'eu-west-1'", "`=`, `OR`"),
    ("customData.tier = \"premium\"", "Suggested CEL: customData.tier == \"premium\""),
    ("user.userType='internal-user'", "Suggested CEL: user.userType=='internal-user'"),
    // undeclared variables and unknown fields
    ("userType == 'internal-user'", "undeclared variable `userType`"),
    ("usr.userType == 'internal-user'", "did you mean `user`"),
    ("custom_data.tier == 'premium'", "did you mean `customData`"),
    ("context.user.userType == 'x'", "declared variables are user, customData, account, request"),
    ("user.usertype == 'internal-user'", "did you mean `user.userType`"),
    ("user.role == 'admin'", "did you mean `user.roles`"),
    ("account.id == 'acct-1'", "its fields are accountId, type, organizationId"),
    ("request.timestamp > timestamp('2024-01-01T00:00:00Z')", "did you mean `request.time`"),
    ("user.userType == internal", "undeclared variable `internal`"),
    ("[1, 2].exists(x, x == y)", "undeclared variable `y`"),
    ("MyType{a: 1}.a == 1", "struct literal"),
    // syntax errors: position and hint
    ("user.userType == 'internal-user", "syntax error"),
    ("user.userType ==", "syntax error"),
    ("(user.userType == 'x'", "syntax error"),
    ("user.userType === 'x'", "Suggested CEL: user.userType == 'x'"),
    ("user.userType == 'x')", "syntax error"),
    ("user.roles.exists(r, r == 'admin'", "syntax error"),
    ("user.userType == 'x' &&", "syntax error"),
    ("user..userType == 'x'", "syntax error"),
    ("@user == 1", "syntax error"),
    ("user.userType == 'a' ? : 'b'", "syntax error"),
    // bounds
    ("   ", "condition is empty"),
    (
        "user.roles.all(a, user.roles.all(b, user.roles.all(c, a == b && b == c)))",
        "nested 3 deep, at most 2",
    ),
];

#[test]
fn every_bad_condition_is_rejected_with_path_position_and_hint() {
    assert!(CORPUS.len() >= 30, "corpus has {}", CORPUS.len());
    for (i, (condition, expected)) in CORPUS.iter().enumerate() {
        // place the bad rule after a good one, to check the path names its index
        let rules = vec![rule("user.userType == 'internal-user'"), rule(condition)];
        let errors = validate_rules(&rules);
        assert!(!errors.is_empty(), "#{i} accepted: {condition}");
        for e in &errors {
            assert_eq!(e.path, "/1/condition", "#{i} {condition}: {e:?}");
        }
        let all = errors.iter().map(|e| e.message.as_str()).collect::<Vec<_>>().join("\n");
        assert!(all.contains(expected), "#{i} {condition}: expected {expected:?} in {all}");
        // a position (line:column) unless the problem is the whole condition
        if !expected.contains("empty") && !expected.contains("nested") {
            let first = &errors[0].message;
            let pos = first.split(':').take(2).collect::<Vec<_>>();
            assert!(
                pos.len() == 2 && pos.iter().all(|p| p.parse::<usize>().is_ok()),
                "#{i} {condition}: no line:column in {first}"
            );
        }
        // a hint: a suggestion, a list of what is allowed, or the CEL syntax reminder
        assert!(
            [
                "Suggested CEL",
                "did you mean",
                "declared variables",
                "its fields",
                "hint:",
                "omit",
                "use a map",
                "flatten"
            ]
            .iter()
            .any(|h| all.contains(h)),
            "#{i} {condition}: no hint in {all}"
        );
    }
}

#[test]
fn the_position_points_at_the_problem() {
    for (condition, position) in [
        ("user.userType == 'x' && usr.email == 'y'", "1:25:"),
        ("user.userType == 'x' &&\n  user.emial == 'y'", "2:8:"),
        ("user.userType = 'x'", "1:15:"),
        ("user.userType == 'x' &&& true", "1:24:"),
        ("@user == 1", "1:1:"),
        ("user.userType ==", "1:17:"),
    ] {
        let errors = validate_rules(&[rule(condition)]);
        assert!(errors[0].message.starts_with(position), "{condition}: {errors:?}");
    }
}

#[test]
fn list_limits_and_unknown_fields() {
    let many = vec![rule("user.userType == 'x'"); 65];
    let errors = validate_rules(&many);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].path, "");
    assert!(errors[0].message.contains("at most 64"));
    assert!(validate_rules(&many[..64]).is_empty());

    let long = format!("user.userType == '{}'", "x".repeat(2_048));
    let errors = validate_rules(&[rule(&long)]);
    assert_eq!(errors[0].path, "/0/condition");
    assert!(errors[0].message.contains("at most 2048"), "{errors:?}");

    let typo: Vec<AccessRule> = serde_json::from_str(
        r#"[{"effect": "allow"}, {"effect": "deny", "condtion": "true", "a/b": 1}]"#,
    )
    .unwrap();
    let errors = validate_rules(&typo);
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, vec!["/1/a~1b", "/1/condtion"]);
    assert!(errors[1].message.contains("unknown field `condtion`"));

    let mut described = rule("true");
    described.description = Some("d".repeat(1_001));
    assert_eq!(validate_rules(&[described])[0].path, "/0/description");
}

#[test]
fn good_conditions_pass() {
    for ok in [
        "user.userType == 'internal-user' && customData.tier == 'premium'",
        "'site-admin' in user.roles",
        "has(user.email) && user.email.endsWith('@example.com')",
        "request.time < timestamp('2030-01-01T00:00:00Z')",
        "customData.anything.goes == 1",
        "account.type == 'retailer' || account.organizationId == 'org-7'",
        "user.roles.exists(r, user.roles.all(s, s == r))",
        "request.toolId.startsWith('weather') && request.agentId != ''",
        "user.email.matches('^[a-z]+@example[.]com$')",
        "size(user.roles) > 0 ? true : false",
    ] {
        assert_eq!(validate_rules(&[rule(ok)]), vec![], "{ok}");
    }
}
