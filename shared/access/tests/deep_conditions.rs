#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The deepest conditions the limits accept evaluate on a 2 MiB stack (tokio's worker default) without
//! overflowing, even in a debug build.

use registry_access::{AccessRule, RequestContext, dry_run, limits};
use serde_json::{Value, json};

/// `1 <op> 1 <op> ... == 0`, as deep as `MAX_AST_DEPTH` allows.
fn chain(op: &str) -> String {
    let mut s = "1".to_owned();
    for _ in 0..limits::MAX_AST_DEPTH - 2 {
        s.push_str(&format!(" {op} 1"));
    }
    format!("{s} == 0")
}

fn evaluate_on_small_stack(condition: String) -> Value {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let rule: AccessRule =
                serde_json::from_value(json!({"effect": "allow", "condition": condition})).unwrap();
            let ctx: RequestContext = serde_json::from_value(json!({})).unwrap();
            serde_json::to_value(dry_run(&[rule], &ctx)).unwrap()
        })
        .unwrap()
        .join()
        .expect("evaluation overflowed or panicked")
}

#[test]
fn deepest_interpreted_chains_fit_a_two_mib_stack() {
    // 1 - 1 - ... is negative, 1 % 1 is 0, 1 * 1 and 1 / 1 are 1.
    for (op, allowed) in [("-", false), ("*", false), ("/", false), ("%", true)] {
        let result = evaluate_on_small_stack(chain(op));
        let effect = result["decision"]["effect"].as_str().unwrap_or_default();
        assert_eq!(effect == "allow", allowed, "{op}: {result}");
    }
}

#[test]
fn too_deep_chains_are_refused_on_write() {
    let mut s = "1".to_owned();
    for _ in 0..limits::MAX_AST_DEPTH + 4 {
        s.push_str(" - 1");
    }
    let rule: AccessRule =
        serde_json::from_value(json!({"effect": "allow", "condition": format!("{s} == 0")}))
            .unwrap();
    let errors = registry_access::validate_rules(&[rule]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].path, "/0/condition");
}
