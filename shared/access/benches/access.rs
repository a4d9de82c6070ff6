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
    vec![AccessRule {
        condition: Some(condition.to_string()),
        effect: Effect::Allow,
        order: None,
        description: None,
        unknown: Default::default(),
    }]
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
    let mut per_tool = PreparedContext::new(&ctx).unwrap();
    c.bench_function("context/set_tool_id", |b| {
        b.iter(|| per_tool.set_tool_id(black_box(Some("weather-basic@2"))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
