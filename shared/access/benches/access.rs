#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]
//! Access-rule benchmarks on the five cases of `access-cases.json`: evaluation of a
//! compiled rule against a context prepared once, compile of each case, and the
//! per-decision context costs.

use criterion::{Criterion, criterion_group, criterion_main};
use registry_access::{AccessRule, Effect, PreparedContext, RequestContext, RuleSet};
use std::hint::black_box;

const CASES: &str = include_str!("access-cases.json");

fn cases() -> (RequestContext, Vec<(String, String)>) {
    let file: serde_json::Value = serde_json::from_str(CASES).unwrap();
    let ctx = serde_json::from_value(file["context"].clone()).unwrap();
    let cases = file["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (c["name"].as_str().unwrap().to_string(), c["condition"].as_str().unwrap().to_string())
        })
        .collect();
    (ctx, cases)
}

fn rules(condition: &str) -> Vec<AccessRule> {
    vec![AccessRule::new(Effect::Allow, Some(condition))]
}

fn bench(c: &mut Criterion) {
    let (ctx, cases) = cases();
    let prepared = PreparedContext::new(&ctx).unwrap();
    for (name, condition) in &cases {
        let set = RuleSet::compile(&rules(condition)).unwrap();
        assert!(set.evaluate(&prepared).is_allowed());
        c.bench_function(&format!("evaluate/{name}"), |b| {
            b.iter(|| black_box(&set).evaluate(black_box(&prepared)))
        });
    }
    // For comparison: plain `cel` usage, a Program against a Context holding the
    // four variables (what this crate replaces with flattened paths and a resolver).
    let file: serde_json::Value = serde_json::from_str(CASES).unwrap();
    let mut plain = cel::Context::default();
    for var in ["user", "customData", "account", "request"] {
        plain.add_variable(var, cel::to_value(&file["context"][var]).unwrap()).unwrap();
    }
    for (name, condition) in &cases {
        let program = cel::Program::compile(condition).unwrap();
        assert_eq!(program.execute(&plain), Ok(cel::Value::Bool(true)));
        c.bench_function(&format!("plain-cel/{name}"), |b| {
            b.iter(|| black_box(&program).execute(black_box(&plain)))
        });
    }
    for (name, condition) in &cases {
        let rules = rules(condition);
        c.bench_function(&format!("compile/{name}"), |b| {
            b.iter(|| RuleSet::compile(black_box(&rules)).unwrap())
        });
    }
    c.bench_function("context/prepare", |b| {
        b.iter(|| PreparedContext::new(black_box(&ctx)).unwrap())
    });
    // A decision from the request body: parse the context, prepare it, evaluate.
    let body = serde_json::to_vec(&ctx).unwrap();
    c.bench_function("context/prepare-from-json", |b| {
        b.iter(|| PreparedContext::from_json(black_box(&body)).unwrap())
    });
    for (name, condition) in &cases {
        let set = RuleSet::compile(&rules(condition)).unwrap();
        c.bench_function(&format!("decision-from-json/{name}"), |b| {
            b.iter(|| set.evaluate(&PreparedContext::from_json(black_box(&body)).unwrap()))
        });
    }
    // The same through the typed body (`serde_json` into `RequestContext`, then prepare).
    c.bench_function("context/parse-typed-then-prepare", |b| {
        b.iter(|| {
            let ctx: RequestContext = serde_json::from_slice(black_box(&body)).unwrap();
            PreparedContext::new(&ctx).map(|_| ()).unwrap()
        })
    });
    adversarial(c);
    let mut per_tool = PreparedContext::new(&ctx).unwrap();
    c.bench_function("context/set_tool_id", |b| {
        b.iter(|| per_tool.set_tool_id(black_box(Some("weather-basic@2"))))
    });
}

/// The cost model's worst cases (`tests/cost_model.rs`) against the largest context:
/// each decision ends in a budget error; this is how long it takes to get there.
fn adversarial(c: &mut Criterion) {
    use registry_access::limits::{MAX_CONTEXT_COLLECTION, MAX_CONTEXT_STRING_BYTES};
    let s = "a".repeat(MAX_CONTEXT_STRING_BYTES);
    let list = vec![s.clone(); MAX_CONTEXT_COLLECTION];
    let ctx: RequestContext = serde_json::from_value(serde_json::json!({
        "user": {"userId": s, "roles": list},
        "customData": {"s": s, "l": list}
    }))
    .unwrap();
    let prepared = PreparedContext::new(&ctx).unwrap();
    let doubling = format!("size([customData.s]{}) > 0", ".map(x, x + x)".repeat(20));
    let attacks = [
        ("string-doubling", doubling.as_str()),
        ("list-growth", "size(customData.l.map(a, customData.l.map(b, a + b))) > 0"),
        (
            "scan-produced",
            "customData.l.exists(a, customData.l.exists(b, (a + b + a + b).contains(b + 'x')))",
        ),
        (
            "regex-nested",
            "customData.l.exists(a, customData.l.exists(b, (a + b).matches('^(a|b)*c$')))",
        ),
        (
            "loops-over-literals",
            "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16].all(x, customData.l.all(y, size(y) > x))",
        ),
    ];
    for (name, condition) in attacks {
        let set = RuleSet::compile(&rules(condition)).unwrap();
        c.bench_function(&format!("adversarial/{name}"), |b| {
            b.iter(|| set.evaluate(black_box(&prepared)))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
