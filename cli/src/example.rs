//! The example a newcomer can resolve right away: a weather agent with three tools, one
//! of them protected by an access rule, one of them the example-tool Lambda.

use anyhow::{Context, Result};
use registry_api::{Principal, Registry, Role};
use registry_core::{AgentDefinition, ToolDefinition};

const TOOLS: [(&str, &str); 3] = [
    ("weather-basic@1.0.0", include_str!("../example/weather-basic.json")),
    ("weather-forecast@1.0.0", include_str!("../example/weather-forecast.json")),
    // The schema of the example-tool Lambda (functions/example-tool): resolvable here,
    // invocable under `cargo lambda watch`.
    ("convert_units@1.0.0", include_str!("../example/convert-units.json")),
];
const AGENT: (&str, &str) = ("weather-agent", include_str!("../example/weather-agent.json"));

/// Creates (or re-applies) the example tools and agent.
pub async fn load(registry: &Registry) -> Result<()> {
    let principal = Principal::new("example-loader", Role::Admin);
    for (id, json) in TOOLS {
        let tool: ToolDefinition = serde_json::from_str(json).context("example tool")?;
        registry
            .catalog
            .apply(&principal, id, tool, None, None)
            .await
            .map_err(|e| anyhow::anyhow!("{id}: {e}"))?;
    }
    let (id, json) = AGENT;
    let agent: AgentDefinition = serde_json::from_str(json).context("example agent")?;
    registry
        .catalog
        .apply(&principal, id, agent, None, None)
        .await
        .map_err(|e| anyhow::anyhow!("{id}: {e}"))?;
    Ok(())
}
