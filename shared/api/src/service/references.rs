//! Referential integrity of agents: tool references must exist and not be retired.

use registry_core::{AgentDefinition, Definition, Kind, LifecycleStatus, Violation, pointer};
use registry_store::Store;

use crate::service::ServiceError;

/// Violations for every tool reference of `definition` (an agent's `toolIds` and
/// `rolloutPolicy.toolOverrides` targets) that is missing or retired.
pub async fn check(
    store: &dyn Store,
    definition: &Definition,
) -> Result<Vec<Violation>, ServiceError> {
    let Definition::Agent(agent) = definition else { return Ok(Vec::new()) };
    let refs = definition.references();
    if refs.is_empty() {
        return Ok(Vec::new());
    }
    let found = store
        .get_many(Kind::Tool, &refs)
        .await
        .map_err(|e| ServiceError::from_store(Kind::Tool, "", e))?;
    let mut missing = Vec::new();
    let mut retired = Vec::new();
    for (id, tool) in refs.into_iter().zip(found) {
        match tool {
            None => missing.push(id),
            Some(t) if t.status() == LifecycleStatus::Retired => retired.push(id),
            Some(_) => {}
        }
    }
    Ok(violations(agent, &missing, &retired))
}

/// Locates missing and retired tool ids in an agent, one violation per occurrence.
pub fn violations(
    agent: &AgentDefinition,
    missing: &[String],
    retired: &[String],
) -> Vec<Violation> {
    let problem = |id: &String| {
        if missing.contains(id) {
            Some(format!("tool `{id}` does not exist"))
        } else if retired.contains(id) {
            Some(format!("tool `{id}` is retired and cannot be bound to an agent"))
        } else {
            None
        }
    };
    let mut out: Vec<Violation> = agent
        .tool_ids
        .iter()
        .enumerate()
        .filter_map(|(i, id)| {
            problem(id).map(|message| Violation { path: pointer("/toolIds", i), message })
        })
        .collect();
    if let Some(overrides) = agent.rollout_policy.as_ref().and_then(|r| r.tool_overrides.as_ref()) {
        for (key, id) in overrides {
            if let Some(message) = problem(id) {
                out.push(Violation { path: pointer("/rolloutPolicy/toolOverrides", key), message });
            }
        }
    }
    out
}
