//! What the interceptor's tests and its bench share: the example tool as gateway target
//! `units`, held in memory as the rule source (an in-process stand-in for the registry's
//! table; agent `support-bot` uses it), and a gateway configuration trusting a key ring.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use registry_core::{AgentDefinition, LifecycleStatus, ToolDefinition};
use registry_gateway::GatewayConfig;
use registry_guard::RuleSource;
use registry_store::StoreError;
use registry_token::KeyRing;
use serde_json::json;

/// The issuer of the principal tokens.
pub const ISSUER: &str = "http://registry.test";
/// The clock of the gateway and of the tokens (ms since the epoch).
pub const NOW_MS: i64 = 1_795_608_000_000;

/// The rules, already in memory: one tool, and agent `support-bot` that uses it.
pub struct Memory(pub ToolDefinition);

impl RuleSource for Memory {
    async fn tool(&self, id: &str) -> Result<Option<ToolDefinition>, StoreError> {
        Ok((id == self.0.tool_id).then(|| self.0.clone()))
    }

    async fn agent(&self, id: &str) -> Result<Option<AgentDefinition>, StoreError> {
        let agent = json!({
            "agentId": "support-bot",
            "basePrompt": "You convert units.",
            "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
            "toolIds": [self.0.tool_id]
        });
        Ok((id == "support-bot").then(|| serde_json::from_value(agent).unwrap()))
    }

    async fn tools_tagged(
        &self,
        key: &str,
        value: &str,
    ) -> Result<Vec<(String, LifecycleStatus)>, StoreError> {
        let tagged = self.0.tags.as_ref().and_then(|t| t.get(key)).is_some_and(|v| v == value);
        let status = self.0.lifecycle.as_ref().map(|l| l.status).unwrap_or_default();
        Ok(if tagged { vec![(self.0.tool_id.clone(), status)] } else { Vec::new() })
    }
}

/// The example tool, gateway target `units`.
pub fn units_tool() -> ToolDefinition {
    let mut tool: serde_json::Value =
        serde_json::from_str(include_str!("../../../../cli/example/convert-units.json")).unwrap();
    tool["tags"][registry_gateway::TARGET_TAG] = json!("units");
    serde_json::from_value(tool).unwrap()
}

/// A gateway configuration trusting the tokens `keys` signs for [`ISSUER`].
pub fn config(keys: &KeyRing) -> GatewayConfig {
    let jwks = serde_json::to_string(&keys.jwks()).unwrap();
    GatewayConfig::from_vars(|name| match name {
        "REGISTRY_TOKEN_ISSUER" => Some(ISSUER.to_owned()),
        "REGISTRY_JWKS" => Some(jwks.clone()),
        _ => None,
    })
    .unwrap()
}
