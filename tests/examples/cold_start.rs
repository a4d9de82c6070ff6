//! Cold start of each function binary under the local Lambda Runtime API: time from
//! process start to its first poll (`init`) and to its first response (`first`).
//!
//! `cargo build --release -p admin-api -p custom-resource -p example-tool`, then
//! `cargo run -p registry-e2e --example cold_start -- target/release [runs]`
//! (figures in docs/performance.md; the moto server of the table is started as in tests).
//! The example tool runs guarded: its first response includes its guard's first read of
//! the tool's rules from the table.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use registry_core::Definition;
use registry_e2e::events::{Request, cfn, http};
use registry_e2e::principal::{self, guard_env, now_s, ring};
use registry_e2e::{Answer, Lambda, ResponseUrl, Table};
use registry_store::{Expected, Store};
use registry_token::SESSION_ATTRIBUTE;
use serde_json::Value;

const ROLE_MAP: &str = include_str!("../../functions/admin-api/role-map.example.json");

fn event(name: &str, urls: &ResponseUrl, run: usize) -> Value {
    match name {
        "custom-resource" => {
            let props: Value =
                serde_json::from_str(include_str!("../events/tool-properties.json")).unwrap();
            let url = urls.url(&format!("cold/{run}"));
            let id = format!("cold-{run}");
            cfn(&Request {
                request_type: "Create",
                request_id: &id,
                response_url: &url,
                resource_type: "Custom::AgentRegistryTool",
                logical_id: "ConvertTool",
                properties: &props,
                physical_id: None,
                old_properties: None,
            })
        }
        "admin-api" => http("GET", "/tools", None, "arn:aws:iam::123456789012:user/auditor"),
        _ => {
            let mut event: Value = serde_json::from_str(include_str!(
                "../../functions/example-tool/events/convert-length.json"
            ))
            .unwrap();
            let session = event["sessionId"].as_str().unwrap_or_default().to_owned();
            event["sessionAttributes"][SESSION_ATTRIBUTE] = signed_context(&session).into();
            event
        }
    }
}

/// A principal token issued as resolution issues it, for `session`, valid for an hour.
fn signed_context(session: &str) -> String {
    principal::issue(ring(), "cold-start", &serde_json::json!({}), session, now_s() + 3_600)
}

/// A fresh table; for the example tool, holding its definition (its guard reads it on
/// the first call, which the first response includes).
async fn table_for(name: &str) -> Table {
    if name != "example-tool" {
        return Table::fresh().await;
    }
    let store = registry_store_dynamodb::local::fresh_store("cold").await.unwrap();
    let tool = serde_json::from_str(include_str!("../../cli/example/convert-units.json")).unwrap();
    store.put(Definition::Tool(tool), Expected::Absent).await.unwrap();
    let endpoint = registry_store_dynamodb::local::endpoint().unwrap().to_owned();
    Table { name: store.table().to_owned(), endpoint }
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "target/release".into()));
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let urls = ResponseUrl::start().await;
    println!("| function | init (median, min..max) | first response (median, min..max) | runs |");
    println!("| --- | --- | --- | --- |");
    for name in ["custom-resource", "admin-api", "example-tool"] {
        let mut init = Vec::new();
        let mut first = Vec::new();
        for run in 0..runs {
            let table = table_for(name).await;
            let [issuer, jwks] = guard_env();
            let env = [
                ("REGISTRY_ROLE_MAP", ROLE_MAP),
                ("REGISTRY_TABLE", table.name.as_str()),
                ("REGISTRY_TOOL_ID", "convert_units@1.0.0"),
                issuer,
                jwks,
            ];
            let started = Instant::now();
            let f = Lambda::start_at(dir.join(name), name, &table, &env).await;
            let answer = f.invoke(&event(name, &urls, run), Duration::from_secs(30)).await;
            first.push(started.elapsed());
            assert!(matches!(answer, Answer::Response(_)), "{name}: {answer:?}\n{}", f.log());
            if let Answer::Response(r) = &answer {
                let state = r.pointer("/response/functionResponse/responseState");
                assert!(state.is_none(), "{name}: the call was refused: {r}\n{}", f.log());
            }
            init.push(f.init_time().unwrap_or_default());
        }
        println!("| {name} | {} | {} | {runs} |", summary(&mut init), summary(&mut first));
    }
}

fn summary(d: &mut [Duration]) -> String {
    d.sort();
    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
    format!("{} ({}..{})", ms(d[d.len() / 2]), ms(d[0]), ms(d[d.len() - 1]))
}
