//! A bounded, thread-safe [`RuleCache`]: one entry per definition id holding its newest
//! compiled version ([`VersionCache`]). Definitions without a version (never stored)
//! are compiled every time and not cached.

use std::sync::Arc;

use registry_access::RuleSet;

use crate::model::{AgentDefinition, ToolDefinition};
use crate::resolve::compiled::{
    CompileError, CompiledTool, RuleCache, compile_agent, compile_tool,
};
use crate::version_cache::VersionCache;

/// Default number of entries per kind.
pub const DEFAULT_CAPACITY: usize = 10_000;

/// Compiled agent rules and tools by id, at most `capacity` of each kind (when full,
/// the entry least worth keeping makes room; it is recompiled on its next use).
#[derive(Debug)]
pub struct BoundedCache {
    agents: VersionCache<Arc<RuleSet>>,
    tools: VersionCache<Arc<CompiledTool>>,
}

impl Default for BoundedCache {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY)
    }
}

impl BoundedCache {
    /// An empty cache keeping at most `capacity` agents and `capacity` tools.
    pub fn new(capacity: usize) -> Self {
        Self { agents: VersionCache::new(capacity), tools: VersionCache::new(capacity) }
    }

    /// Number of cached (agents, tools).
    pub fn len(&self) -> (usize, usize) {
        (self.agents.len(), self.tools.len())
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == (0, 0)
    }
}

fn get_or_compile<T>(
    entries: &VersionCache<Arc<T>>,
    id: &str,
    version: u64,
    compile: impl FnOnce() -> Result<T, CompileError>,
) -> Result<Arc<T>, CompileError> {
    if let Some(hit) = entries.get(id, version) {
        return Ok(hit);
    }
    let compiled = Arc::new(compile()?);
    entries.put(id, version, Arc::clone(&compiled));
    Ok(compiled)
}

impl RuleCache for BoundedCache {
    fn agent(&self, agent: &AgentDefinition) -> Result<Arc<RuleSet>, CompileError> {
        let version = agent.server.version.unwrap_or(0);
        get_or_compile(&self.agents, &agent.agent_id, version, || compile_agent(agent))
    }

    fn tool(&self, tool: &ToolDefinition) -> Result<Arc<CompiledTool>, CompileError> {
        let version = tool.server.version.unwrap_or(0);
        get_or_compile(&self.tools, &tool.tool_id, version, || compile_tool(tool))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn agent(id: &str, version: u64, condition: &str) -> AgentDefinition {
        serde_json::from_value(json!({
            "agentId": id, "basePrompt": "p", "toolIds": [], "version": version,
            "accessRules": [{"effect": "allow", "condition": condition}]
        }))
        .unwrap()
    }

    #[test]
    fn hits_by_version_and_keeps_the_newest() {
        let cache = BoundedCache::new(2);
        let v1 = cache.agent(&agent("a", 1, "true")).unwrap();
        assert!(Arc::ptr_eq(&v1, &cache.agent(&agent("a", 1, "true")).unwrap()));
        let v2 = cache.agent(&agent("a", 2, "false")).unwrap();
        assert!(!Arc::ptr_eq(&v1, &v2));
        // an older version is compiled but does not displace the newer entry
        cache.agent(&agent("a", 1, "true")).unwrap();
        assert!(Arc::ptr_eq(&v2, &cache.agent(&agent("a", 2, "false")).unwrap()));
        assert_eq!(cache.len(), (1, 0));
    }

    #[test]
    fn stays_within_capacity_and_skips_unversioned() {
        let cache = BoundedCache::new(2);
        for id in ["a", "b", "c", "d"] {
            cache.agent(&agent(id, 1, "true")).unwrap();
        }
        assert!(cache.len().0 <= 2 && cache.len().1 == 0, "{:?}", cache.len());
        let unversioned = agent("u", 0, "true");
        let one = cache.agent(&unversioned).unwrap();
        assert!(!Arc::ptr_eq(&one, &cache.agent(&unversioned).unwrap()));
        assert!(cache.agents.get("u", 0).is_none());
    }

    #[test]
    fn compile_errors_are_not_cached() {
        let cache = BoundedCache::default();
        let bad = agent("bad", 1, "user.userType = 'x'");
        assert!(matches!(cache.agent(&bad), Err(CompileError::Rules(_))));
        assert!(cache.is_empty());
    }
}
