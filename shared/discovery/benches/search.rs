//! Tool search latency over 10,000 generated tools (goal: p95 <= 5 ms; scripts/bench.sh
//! prints the p95 from criterion's samples).

#[path = "../tests/support/catalog.rs"]
#[allow(dead_code, clippy::unwrap_used, clippy::expect_used, missing_docs)]
mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use registry_discovery::ToolIndex;

fn search(c: &mut Criterion) {
    let index = ToolIndex::build(support::catalog(10_000 - support::INTENDED.len()));
    let queries: Vec<&str> = support::INTENDED.iter().map(|t| t.6).collect();
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
