//! A bounded, thread-safe [`RuleCache`]: one entry per definition id holding its newest
//! compiled version. Versions are never reused (docs/decisions.md entry 3), so an
//! entry whose version matches is always right. Definitions without a version (never
//! stored) are compiled every time and not cached.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use registry_access::RuleSet;

use crate::model::{AgentDefinition, ToolDefinition};
use crate::resolve::compiled::{
    CompileError, CompiledTool, RuleCache, compile_agent, compile_tool,
};

/// Default number of entries per kind.
pub const DEFAULT_CAPACITY: usize = 10_000;

type Entries<T> = RwLock<HashMap<String, (u64, Arc<T>)>>;

/// Compiled agent rules and tools by id, at most `capacity` of each kind; when full,
/// an arbitrary entry makes room (it is recompiled on its next use).
#[derive(Debug)]
pub struct BoundedCache {
    capacity: usize,
    agents: Entries<RuleSet>,
    tools: Entries<CompiledTool>,
}

impl Default for BoundedCache {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY)
    }
}

impl BoundedCache {
    /// An empty cache keeping at most `capacity` agents and `capacity` tools.
    pub fn new(capacity: usize) -> Self {
        Self { capacity, agents: RwLock::default(), tools: RwLock::default() }
    }

    /// Number of cached (agents, tools).
    pub fn len(&self) -> (usize, usize) {
        (count(&self.agents), count(&self.tools))
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == (0, 0)
    }
}

fn count<T>(entries: &Entries<T>) -> usize {
    entries.read().map_or(0, |m| m.len())
}

fn get_or_compile<T>(
    entries: &Entries<T>,
    capacity: usize,
    id: &str,
    version: u64,
    compile: impl FnOnce() -> Result<T, CompileError>,
) -> Result<Arc<T>, CompileError> {
    if version == 0 {
        return compile().map(Arc::new);
    }
    // a poisoned lock only means another thread panicked mid-insert: treat as a miss
    if let Ok(map) = entries.read()
        && let Some((v, hit)) = map.get(id)
        && *v == version
    {
        return Ok(Arc::clone(hit));
    }
    let compiled = Arc::new(compile()?);
    if let Ok(mut map) = entries.write() {
        let newer_cached = map.get(id).is_some_and(|(v, _)| *v > version);
        if !newer_cached && capacity > 0 {
            if map.len() >= capacity && !map.contains_key(id) {
                let victim = map.keys().next().cloned();
                if let Some(victim) = victim {
                    map.remove(&victim);
                }
            }
            map.insert(id.to_owned(), (version, Arc::clone(&compiled)));
        }
    }
    Ok(compiled)
}

impl RuleCache for BoundedCache {
    fn agent(&self, agent: &AgentDefinition) -> Result<Arc<RuleSet>, CompileError> {
        let version = agent.server.version.unwrap_or(0);
        get_or_compile(&self.agents, self.capacity, &agent.agent_id, version, || {
            compile_agent(agent)
        })
    }

    fn tool(&self, tool: &ToolDefinition) -> Result<Arc<CompiledTool>, CompileError> {
        let version = tool.server.version.unwrap_or(0);
        get_or_compile(&self.tools, self.capacity, &tool.tool_id, version, || compile_tool(tool))
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
        assert_eq!(cache.len(), (2, 0));
        let unversioned = agent("u", 0, "true");
        let one = cache.agent(&unversioned).unwrap();
        assert!(!Arc::ptr_eq(&one, &cache.agent(&unversioned).unwrap()));
        assert!(cache.agents.read().unwrap().get("u").is_none());
    }

    #[test]
    fn compile_errors_are_not_cached() {
        let cache = BoundedCache::default();
        let bad = agent("bad", 1, "user.userType = 'x'");
        assert!(matches!(cache.agent(&bad), Err(CompileError::Rules(_))));
        assert!(cache.is_empty());
    }
}
