//! The registry against the engines users would pick instead, one criterion group per
//! case (`peers/<case>`: the five access cases, `refund`, `resolution`), each engine on
//! two paths:
//!
//! - `<engine>-prepared`: the request already in the engine's own form (the registry's
//!   `PreparedContext`, a `cel::Context`, Cedar `Request`s, a Rego `Value`);
//! - `<engine>-json`: from the request's JSON text to the decision.
//!
//! `resolution` also has `registry-rules-*`: the registry's rule decisions alone.
//!
//! The policies are equivalent (`cases.json`, `tests/equivalence.rs`).
//! `scripts/bench.sh` prints the table, the ratios and the goals (docs/performance.md).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, criterion_group, criterion_main};
use registry_bench_peers::{
    Case, Cedar, Kind, Peer, PlainCel, Registry, RegistryRules, Rego, cases,
};
use std::hint::black_box;

fn engine<P: Peer>(group: &mut BenchmarkGroup<'_, WallTime>, case: &Case) {
    let mut peer = P::new(case).unwrap();
    let request = peer.prepare(&case.request).unwrap();
    assert_eq!(peer.decide(&request), case.all_allowed(), "{} on {}", P::NAME, case.name);
    group.bench_function(format!("{}-prepared", P::NAME), |b| {
        b.iter(|| peer.decide(black_box(&request)))
    });
    group.bench_function(format!("{}-json", P::NAME), |b| {
        b.iter(|| peer.decide_json(black_box(&case.request)).unwrap())
    });
}

fn bench(c: &mut Criterion) {
    for case in cases().unwrap() {
        let mut group = c.benchmark_group(format!("peers/{}", case.name));
        engine::<Registry>(&mut group, &case);
        if let Kind::Resolution { .. } = case.kind {
            // the rule decisions alone, as the peers decide a resolution
            engine::<RegistryRules>(&mut group, &case);
        }
        engine::<PlainCel>(&mut group, &case);
        engine::<Cedar>(&mut group, &case);
        engine::<Rego>(&mut group, &case);
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
