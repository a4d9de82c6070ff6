//! The binary refuses to start on bad configuration, with a clear log line naming the
//! variable, before it contacts the Lambda runtime API.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use registry_config::names;

/// Runs the binary with `env`; returns (success, stdout + stderr).
fn run(env: &[(&str, &str)]) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_admin-api"));
    cmd.env_remove(names::ROLE_MAP).env_remove(names::TABLE).env_remove("AWS_LAMBDA_RUNTIME_API");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

#[test]
fn missing_role_map_stops_the_function() {
    let (ok, log) = run(&[(names::TABLE, "registry")]);
    assert!(!ok, "{log}");
    assert!(
        log.contains("refusing to start") && log.contains("REGISTRY_ROLE_MAP is not set"),
        "{log}"
    );
}

#[test]
fn invalid_role_map_stops_the_function_naming_the_entry() {
    let (ok, log) = run(&[(names::TABLE, "registry"), (names::ROLE_MAP, r#"{"admin": ["*"]}"#)]);
    assert!(!ok, "{log}");
    assert!(log.contains("REGISTRY_ROLE_MAP is invalid: /admin/0: "), "{log}");
    let (ok, log) = run(&[(names::TABLE, "registry"), (names::ROLE_MAP, "admin=everyone")]);
    assert!(!ok, "{log}");
    assert!(log.contains("REGISTRY_ROLE_MAP is invalid: not valid JSON"), "{log}");
}

#[test]
fn missing_table_and_bad_review_settings_are_all_named() {
    let (ok, log) = run(&[
        (names::ROLE_MAP, include_str!("../role-map.example.json")),
        (names::REVIEW_APPROVALS, "11"),
    ]);
    assert!(!ok, "{log}");
    assert!(log.contains("REGISTRY_TABLE is not set"), "{log}");
    assert!(log.contains("REGISTRY_REVIEW_APPROVALS is invalid"), "{log}");
}
