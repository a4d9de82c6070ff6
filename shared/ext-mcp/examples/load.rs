//! A load client for the ExtMCP server: `--concurrency` calls in flight over
//! `--connections` HTTP/2 connections for `--seconds`, each a `CheckRequest` for one
//! `tools/call`; prints checks/s, p50 and p99 and the answers seen, and fails when any
//! answer differs from `--expect` (scripts/load.sh). Caller `i` presents the `i`-th
//! principal token of `--tokens` (one per line, reused round robin): one session each.
//!
//! ```text
//! cargo run --release -p registry-ext-mcp --example load -- --addr 127.0.0.1:9091 \
//!   --tokens tokens.txt --target load-tool-035 --tool run --arguments '{"query":"q"}'
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use clap::Parser;
use prost_types::value::Kind;
use prost_types::{Struct, Value as ProtoValue};
use registry_ext_mcp::proto::ext_mcp_client::ExtMcpClient;
use registry_ext_mcp::proto::{McpHeader, McpRequest, mcp_request_result};
use tonic::transport::{Channel, Endpoint};

#[derive(Debug, Parser)]
struct Args {
    /// The server's address.
    #[arg(long)]
    addr: String,
    /// A file of principal tokens (`metadata_context.token`), one per line.
    #[arg(long)]
    tokens: std::path::PathBuf,
    /// The backend (`service_names[0]`).
    #[arg(long)]
    target: String,
    /// The MCP tool called.
    #[arg(long)]
    tool: String,
    /// The call's arguments (a JSON object).
    #[arg(long, default_value = "{}")]
    arguments: String,
    /// Calls in flight at once.
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// HTTP/2 connections the calls share.
    #[arg(long, default_value_t = 4)]
    connections: usize,
    /// How long to load, after a one-second warm-up.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// The answer every call must get: `pass`, or an error code (`PERMISSION_DENIED`, ...).
    #[arg(long, default_value = "pass")]
    expect: String,
}

fn request(args: &Args, token: &str) -> McpRequest {
    let params = serde_json::json!({
        "name": args.tool,
        "arguments": serde_json::from_str::<serde_json::Value>(&args.arguments).expect("--arguments is JSON"),
    });
    let token = ProtoValue { kind: Some(Kind::StringValue(token.to_owned())) };
    McpRequest {
        service_names: vec![args.target.clone()],
        method: "tools/call".into(),
        metadata_context: Some(Struct { fields: [("token".to_owned(), token)].into() }),
        mcp_request: Some(params.to_string().into_bytes()),
        headers: vec![McpHeader { key: "mcp-session-id".into(), value: b"load-session".to_vec() }],
    }
}

fn answer(result: Option<mcp_request_result::Result>) -> String {
    match result {
        Some(mcp_request_result::Result::Pass(_)) => "pass".into(),
        Some(mcp_request_result::Result::Mutated(_)) => "mutated".into(),
        Some(mcp_request_result::Result::Error(e)) => e.code().as_str_name().into(),
        None => "none".into(),
    }
}

/// One caller: calls until `until`, recording each latency (microseconds) after `from`.
async fn caller(
    mut client: ExtMcpClient<Channel>,
    request: McpRequest,
    from: Instant,
    until: Instant,
) -> (Vec<u32>, Vec<String>) {
    let (mut latencies, mut answers) = (Vec::new(), Vec::new());
    loop {
        let started = Instant::now();
        if started >= until {
            return (latencies, answers);
        }
        let seen = match client.check_request(request.clone()).await {
            Ok(response) => answer(response.into_inner().result),
            Err(status) => format!("gRPC {:?}", status.code()),
        };
        if started >= from {
            latencies.push(u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX));
            answers.push(seen);
        }
    }
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let tokens = std::fs::read_to_string(&args.tokens).expect("--tokens is readable");
    let requests: Vec<McpRequest> =
        tokens.lines().filter(|t| !t.trim().is_empty()).map(|t| request(&args, t.trim())).collect();
    assert!(!requests.is_empty(), "--tokens holds no token");
    let mut channels = Vec::new();
    for _ in 0..args.connections.max(1) {
        let endpoint = Endpoint::from_shared(format!("http://{}", args.addr)).expect("--addr");
        channels.push(endpoint.tcp_nodelay(true).connect().await.expect("the server answers"));
    }
    let from = Instant::now() + Duration::from_secs(1);
    let until = from + Duration::from_secs(args.seconds);
    let tasks: Vec<_> = (0..args.concurrency.max(1))
        .map(|i| {
            let client = ExtMcpClient::new(channels[i % channels.len()].clone());
            tokio::spawn(caller(client, requests[i % requests.len()].clone(), from, until))
        })
        .collect();
    let (mut latencies, mut answers) = (Vec::new(), std::collections::BTreeMap::new());
    for task in tasks {
        let (l, a) = task.await.expect("a caller panicked");
        latencies.extend(l);
        for seen in a {
            *answers.entry(seen).or_insert(0u64) += 1;
        }
    }
    latencies.sort_unstable();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)))
    };
    let ms = |v: Option<&u32>| v.map_or(f64::NAN, |v| f64::from(*v) / 1000.0);
    println!(
        "checks\t{}\tchecks/s\t{:.0}\tp50_ms\t{:.3}\tp99_ms\t{:.3}\tanswers\t{answers:?}",
        latencies.len(),
        latencies.len() as f64 / args.seconds as f64,
        ms(at(0.50)),
        ms(at(0.99)),
    );
    let wrong: u64 = answers.iter().filter(|(k, _)| **k != args.expect).map(|(_, n)| n).sum();
    if wrong > 0 || latencies.is_empty() {
        eprintln!("load: {wrong} answers were not `{}`", args.expect);
        std::process::exit(1);
    }
}
