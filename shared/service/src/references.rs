//! Referential integrity of agents: exact tool references must exist and not be
//! retired; ranges must match a live release.

use registry_core::{
    AgentDefinition, Definition, Kind, LifecycleStatus, ToolDefinition, ToolRef, Violation,
    choose_release, pointer,
};
use registry_store::Store;

use crate::{Resource, ServiceError};

/// Every live release of the tool `name` (full definitions; at most
/// [`registry_policy::MAX_RELEASES`]), read through the store's name index.
pub async fn live_releases(
    store: &dyn Store,
    name: &str,
) -> Result<Vec<ToolDefinition>, ServiceError> {
    registry_policy::live_releases(store, name)
        .await
        .map_err(|e| ServiceError::from_store(Kind::Tool, name, e))
}

/// Violations for every range of `agent` (in `toolIds` and `toolOverrides` targets)
/// that no live release matches.
pub async fn check_ranges(
    store: &dyn Store,
    agent: &AgentDefinition,
) -> Result<Vec<Violation>, ServiceError> {
    let overrides = agent.rollout_policy.as_ref().and_then(|r| r.tool_overrides.as_ref());
    let places = agent.tool_ids.iter().enumerate().map(|(i, r)| (pointer("/toolIds", i), r)).chain(
        overrides
            .into_iter()
            .flatten()
            .map(|(key, r)| (pointer("/rolloutPolicy/toolOverrides", key), r)),
    );
    let mut out = Vec::new();
    for (path, reference) in places {
        let Ok(ToolRef::Range { name, req }) = ToolRef::parse(reference) else { continue };
        let releases = live_releases(store, &name).await?;
        let choice =
            choose_release(&req, releases.iter().map(|t| (t.tool_id.as_str(), t.status())));
        if choice.chosen.is_none() {
            let mut live: Vec<&str> = releases
                .iter()
                .filter(|t| {
                    matches!(t.status(), LifecycleStatus::Active | LifecycleStatus::Deprecated)
                })
                .map(|t| t.tool_id.as_str())
                .collect();
            live.sort_by(|a, b| registry_core::release_order(a, b));
            let message = if live.is_empty() {
                format!("`{reference}` matches no release: `{name}` has no live release")
            } else {
                format!("`{reference}` matches no live release (live: {})", live.join(", "))
            };
            out.push(Violation { path, message });
        }
    }
    Ok(out)
}

/// Violations for every tool reference of `agent` (its `toolIds` and
/// `rolloutPolicy.toolOverrides` targets) that is missing or retired.
pub async fn check(
    store: &dyn Store,
    agent: &AgentDefinition,
) -> Result<Vec<Violation>, ServiceError> {
    let mut out = check_ranges(store, agent).await?;
    let refs = agent.references();
    if refs.is_empty() {
        return Ok(out);
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
    out.extend(violations(agent, &missing, &retired));
    Ok(out)
}

/// Locates missing and retired tool ids in an agent, one violation per occurrence.
pub fn violations(
    agent: &AgentDefinition,
    missing: &[String],
    retired: &[String],
) -> Vec<Violation> {
    let problem = |reference: &String| {
        let id = match ToolRef::parse(reference) {
            Ok(ToolRef::Exact(id)) => id,
            _ => return None,
        };
        if missing.contains(&id) {
            Some(format!("tool `{id}` does not exist"))
        } else if retired.contains(&id) {
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

/// Violations for every function in the agent's `limits.maxCallsPerFunction` that none
/// of its tools (exact references and the live releases of ranges) has.
pub async fn check_limit_functions(
    store: &dyn Store,
    agent: &AgentDefinition,
) -> Result<Vec<Violation>, ServiceError> {
    let Some(per_function) = agent.limits.as_ref().and_then(|l| l.max_calls_per_function.as_ref())
    else {
        return Ok(Vec::new());
    };
    if per_function.is_empty() {
        return Ok(Vec::new());
    }
    let mut tools: Vec<ToolDefinition> = Vec::new();
    let mut exact = Vec::new();
    for reference in &agent.tool_ids {
        match ToolRef::parse(reference) {
            Ok(ToolRef::Range { name, .. }) => tools.extend(live_releases(store, &name).await?),
            Ok(ToolRef::Exact(id)) => exact.push(id),
            Err(_) => exact.push(reference.clone()),
        }
    }
    let found = store
        .get_many(Kind::Tool, &exact)
        .await
        .map_err(|e| ServiceError::from_store(Kind::Tool, "", e))?;
    tools.extend(found.into_iter().flatten().filter_map(|d| match d {
        Definition::Tool(t) => Some(t),
        Definition::Agent(_) => None,
    }));
    let mut functions: Vec<&str> = tools
        .iter()
        .flat_map(|t| t.function_schema.iter().flatten().map(|f| f.name.as_str()))
        .collect();
    functions.sort_unstable();
    functions.dedup();
    Ok(per_function
        .keys()
        .filter(|f| !functions.contains(&f.as_str()))
        .map(|f| Violation {
            path: pointer("/limits/maxCallsPerFunction", f),
            message: format!(
                "`{f}` is not a function of the agent's tools; they have {}",
                if functions.is_empty() { "none".to_owned() } else { functions.join(", ") }
            ),
        })
        .collect())
}
