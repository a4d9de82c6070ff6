//! Tool search latency over 10,000 generated tools (goal: p95 <= 5 ms). Criterion
//! measures the mean; the p95 is measured here first, each of the 20 hand-written
//! queries timed one by one, and printed as `search p95: ...` (scripts/bench.sh reports
//! it against the goal).

#[path = "../tests/support/catalog.rs"]
#[allow(dead_code, clippy::unwrap_used, clippy::expect_used, missing_docs)]
mod support;

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use registry_discovery::ToolIndex;

/// Rounds of the 20 queries timed one by one for the p95.
const ROUNDS: usize = 100;

/// Times every query `ROUNDS` times, one search at a time, and prints the 95th
/// percentile.
fn p95(index: &ToolIndex, queries: &[&str]) {
    let mut times: Vec<Duration> = Vec::with_capacity(ROUNDS * queries.len());
    for _ in 0..ROUNDS {
        for query in queries {
            let started = Instant::now();
            std::hint::black_box(index.search(query, 10));
            times.push(started.elapsed());
        }
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "search p95: {} ns (p50 {} ns, max {} ns) over {} searches of 10,000 tools",
        at(0.95).as_nanos(),
        at(0.5).as_nanos(),
        times.last().map_or(0, Duration::as_nanos),
        times.len()
    );
}

fn search(c: &mut Criterion) {
    let index = ToolIndex::build(support::catalog(10_000 - support::INTENDED.len()));
    let queries: Vec<&str> = support::INTENDED.iter().map(|t| t.6).collect();
    p95(&index, &queries);
    let mut next = 0;
    c.bench_function("search/10k-tools", |b| {
        b.iter(|| {
            let query = queries[next % queries.len()];
            next += 1;
            std::hint::black_box(index.search(query, 10))
        })
    });
    c.bench_function("search/10k-tools-common-words", |b| {
        b.iter(|| std::hint::black_box(index.search("list customer records in the crm", 10)))
    });
}

criterion_group!(benches, search);
criterion_main!(benches);
