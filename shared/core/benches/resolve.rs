#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]
//! Full in-process resolution of an agent with 20 tools, 3 access rules on each tool
//! and 3 on the agent, every rule evaluated (two non-matching denies, then an allow),
//! with compiled rules already cached (warm). Target: at most 20 us.

use criterion::{Criterion, criterion_group, criterion_main};
use registry_access::{PreparedContext, RuleSet};
use registry_core::resolve::{BoundedCache, DefinitionMap, Snapshot, resolve};
use registry_core::{AgentDefinition, RequestContext, ToolDefinition};
use serde_json::{Value, json};
use std::hint::black_box;

const TOOLS: usize = 20;

fn rules() -> Value {
    json!([
        {"effect": "deny", "order": 1, "condition": "user.userType == 'external-user'"},
        {"effect": "deny", "order": 2, "condition": "customData.tier == 'blocked'"},
        {"effect": "allow", "order": 3,
         "condition": "'site-admin' in user.roles || user.userType == 'internal-user'"}
    ])
}

fn tool(i: usize) -> ToolDefinition {
    serde_json::from_value(json!({
        "toolId": format!("tool-{i}"),
        "version": 1,
        "executionType": if i.is_multiple_of(2) { "lambda" } else { "mcp" },
        "name": format!("tool_{i}"),
        "displayName": format!("Tool {i}"),
        "description": "Looks things up.",
        "supportedAgentFrameworks": ["bedrock"],
        "lambdaArn": "arn:aws:lambda:us-west-2:123456789012:function:tool",
        "url": "https://mcp.example.com/tool",
        "accessRules": rules(),
        "functionSchema": [{
            "name": "lookup",
            "description": "Look up a city.",
            "parameters": {
                "city": {"description": "City", "type": "string", "required": true},
                "days": {"description": "Days", "type": "integer", "required": false}
            }
        }]
    }))
    .unwrap()
}

fn definitions() -> (AgentDefinition, Vec<ToolDefinition>) {
    let tools: Vec<ToolDefinition> = (0..TOOLS).map(tool).collect();
    let agent = serde_json::from_value(json!({
        "agentId": "weather-agent",
        "version": 3,
        "basePrompt": "You help with the weather.",
        "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
        "toolIds": tools.iter().map(|t| t.tool_id.clone()).collect::<Vec<_>>(),
        "accessRules": rules(),
        "rolloutPolicy": {"regionRestrictions": ["us-west-2"], "percentage": 100}
    }))
    .unwrap();
    (agent, tools)
}

fn context() -> RequestContext {
    serde_json::from_value(json!({
        "user": {"userId": "user-42", "userType": "internal-user", "email": "dana@example.com",
                 "roles": ["site-admin", "analyst"]},
        "customData": {"tier": "premium"},
        "account": {"accountId": "acct-456", "type": "retailer", "organizationId": "org-7"},
        "request": {"region": "us-west-2", "time": "2026-11-20T10:00:00Z"}
    }))
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let (agent, tools) = definitions();
    let ctx = context();

    // what the HTTP service does: fetched definitions + the shared rule cache
    let mut defs = DefinitionMap::default();
    defs.insert_agent(agent.clone());
    for t in &tools {
        defs.insert_tool(t.clone());
    }
    let cache = BoundedCache::default();
    let warm = resolve(&defs, &cache, "weather-agent", &ctx).unwrap();
    assert_eq!(warm.inline_agent.agent.action_groups.len(), TOOLS);
    assert!(warm.trace.tools.iter().all(|t| t.access.as_ref().unwrap().rule_index == Some(2)));
    c.bench_function("resolve/20-tools-3-rules/cache", |b| {
        b.iter(|| resolve(black_box(&defs), &cache, "weather-agent", black_box(&ctx)).unwrap())
    });

    // the parts: preparing the context once, and one tool's three rules
    c.bench_function("resolve/parts/prepare-context", |b| {
        b.iter(|| PreparedContext::new(black_box(&ctx)).unwrap())
    });
    let prepared = PreparedContext::new(&ctx).unwrap();
    let tool_rules = RuleSet::compile(&serde_json::from_value::<Vec<_>>(rules()).unwrap()).unwrap();
    c.bench_function("resolve/parts/3-rules", |b| {
        b.iter(|| black_box(&tool_rules).evaluate(black_box(&prepared)))
    });

    // what an embedding runtime does
    let snapshot = Snapshot::new([agent], tools);
    assert_eq!(snapshot.resolve("weather-agent", &ctx).unwrap(), warm);
    c.bench_function("resolve/20-tools-3-rules/snapshot", |b| {
        b.iter(|| black_box(&snapshot).resolve("weather-agent", black_box(&ctx)).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
