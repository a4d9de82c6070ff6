#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]
//! The decoded-definition cache against a local DynamoDB-API server (moto): a tool `get`
//! and a resolution (agent + 20 tools: `get` + `get_many`) with the cache off (every
//! document decoded) and warm (none decoded). The same requests are sent either way, so
//! the server's latency dominates both; `decode_21` and `clone_21` show the in-process
//! work the cache replaces per resolution. Needs `DYNAMODB_ENDPOINT` or starts moto.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use registry_core::{Definition, Kind};
use registry_store::contract::sample::{agent, tool};
use registry_store::{Expected, Store};
use registry_store_dynamodb::DynamoStore;

const TOOLS: usize = 20;

async fn resolve(store: &DynamoStore) -> usize {
    let agent = store.get(Kind::Agent, "agent").await.unwrap().unwrap();
    let tools = store.get_many(Kind::Tool, &agent.references()).await.unwrap();
    assert!(tools.iter().all(Option::is_some));
    tools.len()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (warm, definitions) = rt.block_on(async {
        let store = registry_store_dynamodb::local::fresh_store("bench").await.unwrap();
        let ids: Vec<String> = (0..TOOLS).map(|n| format!("tool-{n:02}")).collect();
        let mut definitions = Vec::new();
        for id in &ids {
            definitions.push(store.put(tool(id), Expected::Absent).await.unwrap());
        }
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        definitions.push(store.put(agent("agent", &refs), Expected::Absent).await.unwrap());
        assert_eq!(resolve(&store).await, TOOLS);
        (store, definitions)
    });
    let off = warm.clone().with_decoded_cache(0, 0);

    let mut group = c.benchmark_group("dynamodb_get_tool");
    group.bench_function("cache_off", |b| {
        b.iter(|| rt.block_on(off.get(Kind::Tool, "tool-00")).unwrap());
    });
    group.bench_function("cache_warm", |b| {
        b.iter(|| rt.block_on(warm.get(Kind::Tool, "tool-00")).unwrap());
    });
    group.finish();

    let mut group = c.benchmark_group("dynamodb_resolve_20_tools");
    group.bench_function("cache_off", |b| b.iter(|| rt.block_on(resolve(&off))));
    group.bench_function("cache_warm", |b| b.iter(|| rt.block_on(resolve(&warm))));
    group.finish();
    warm.reset_calls();
    rt.block_on(resolve(&warm));
    assert_eq!(warm.decode_counts().decoded, 0, "the warm store decoded nothing");

    // What a warm resolution saves in process: decoding 21 documents vs cloning them.
    let docs: Vec<String> = definitions
        .iter()
        .map(|d| {
            serde_json::json!({"kind": d.kind(), "definition": d.storage_json().unwrap()})
                .to_string()
        })
        .collect();
    let mut group = c.benchmark_group("in_process_21_definitions");
    group.bench_function("decode_21", |b| {
        b.iter(|| {
            for doc in &docs {
                black_box(serde_json::from_str::<Definition>(black_box(doc)).unwrap());
            }
        });
    });
    group.bench_function("clone_21", |b| {
        b.iter(|| {
            for d in &definitions {
                black_box(black_box(d).clone());
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
