//! What discovery reads: every live tool and agent, and the search index over the newest
//! usable release of each tool, rebuilt when the store's event log has moved on (one
//! small event query per request otherwise), so every instance (each Lambda too) sees
//! writes made anywhere.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use registry_core::{AgentDefinition, Definition, Kind, LifecycleStatus, Release, ToolDefinition};
use registry_discovery::ToolIndex;
use registry_store::{EventQuery, ListQuery, Store};

use crate::ServiceError;

/// Events read per query while catching up with the log.
const EVENT_PAGE: u32 = 1_000;

/// Every live definition, as of event `seq`.
pub(crate) struct Snapshot {
    /// The last event the snapshot includes.
    pub(crate) seq: u64,
    /// Live tools, by id.
    pub(crate) tools: BTreeMap<String, Arc<ToolDefinition>>,
    /// Live agents, by id.
    pub(crate) agents: BTreeMap<String, Arc<AgentDefinition>>,
    /// Search over the newest release of each tool that is neither disabled nor retired.
    pub(crate) index: ToolIndex,
}

/// The newest snapshot, and the lock that makes one request rebuild it at a time; with
/// the principals' views worked out over it (decision 114).
#[derive(Default)]
pub(crate) struct Snapshots {
    current: RwLock<Option<Arc<Snapshot>>>,
    rebuilding: tokio::sync::Mutex<()>,
    /// What principals are granted, with the index over it, per snapshot.
    pub(crate) grants: super::visible::Grants,
}

impl Snapshots {
    /// The snapshot as of now.
    pub(crate) async fn current(&self, store: &dyn Store) -> Result<Arc<Snapshot>, ServiceError> {
        if let Some(known) = self.known()
            && !moved_on(store, known.seq).await?
        {
            return Ok(known);
        }
        let _one = self.rebuilding.lock().await;
        let known = self.known();
        if let Some(known) = &known
            && !moved_on(store, known.seq).await?
        {
            return Ok(Arc::clone(known));
        }
        // The log's position first: a write made while listing moves it on again.
        let seq = log_head(store, known.map_or(0, |k| k.seq)).await?;
        let snapshot = Arc::new(read(store, seq).await?);
        if let Ok(mut current) = self.current.write() {
            *current = Some(Arc::clone(&snapshot));
        }
        Ok(snapshot)
    }

    fn known(&self) -> Option<Arc<Snapshot>> {
        self.current.read().ok().and_then(|c| c.clone())
    }
}

fn unavailable(e: registry_store::StoreError) -> ServiceError {
    ServiceError::from_store(Kind::Tool, "", e)
}

/// Whether the event log has an event after `seq`.
async fn moved_on(store: &dyn Store, seq: u64) -> Result<bool, ServiceError> {
    let query = EventQuery { after: seq, limit: 1, ..EventQuery::default() };
    Ok(!store.events(&query).await.map_err(unavailable)?.events.is_empty())
}

/// The last event of the log, reading on from `from`.
async fn log_head(store: &dyn Store, from: u64) -> Result<u64, ServiceError> {
    let mut seq = from;
    loop {
        let query = EventQuery { after: seq, limit: EVENT_PAGE, ..EventQuery::default() };
        let page = store.events(&query).await.map_err(unavailable)?;
        seq = seq.max(page.last);
        if page.events.len() < EVENT_PAGE as usize {
            return Ok(seq);
        }
    }
}

/// Every live definition of `kind`.
async fn list_all(store: &dyn Store, kind: Kind) -> Result<Vec<Definition>, ServiceError> {
    let mut all = Vec::new();
    let mut cursor = None;
    loop {
        let query = ListQuery { limit: 100, cursor, ..ListQuery::default() };
        let page = store.list(kind, &query).await.map_err(unavailable)?;
        all.extend(page.items);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(all),
        }
    }
}

async fn read(store: &dyn Store, seq: u64) -> Result<Snapshot, ServiceError> {
    let tools: BTreeMap<String, Arc<ToolDefinition>> = list_all(store, Kind::Tool)
        .await?
        .into_iter()
        .filter_map(|d| match d {
            Definition::Tool(tool) => Some((tool.tool_id.clone(), Arc::new(tool))),
            Definition::Agent(_) => None,
        })
        .collect();
    let agents = list_all(store, Kind::Agent)
        .await?
        .into_iter()
        .filter_map(|d| match d {
            Definition::Agent(agent) => Some((agent.agent_id.clone(), Arc::new(agent))),
            Definition::Tool(_) => None,
        })
        .collect();
    let index = ToolIndex::build(newest_usable(tools.values()));
    Ok(Snapshot { seq, tools, agents, index })
}

/// Whether resolution could ever keep `tool` (it is neither disabled nor retired).
pub(crate) fn is_usable(tool: &ToolDefinition) -> bool {
    !matches!(
        tool.lifecycle.as_ref().map(|l| l.status).unwrap_or_default(),
        LifecycleStatus::Disabled | LifecycleStatus::Retired
    )
}

/// The newest usable release of each tool name (an id that is no release is its own).
pub(crate) fn newest_usable<'a>(
    tools: impl Iterator<Item = &'a Arc<ToolDefinition>>,
) -> Vec<Arc<ToolDefinition>> {
    let mut newest: BTreeMap<String, &Arc<ToolDefinition>> = BTreeMap::new();
    for tool in tools.filter(|t| is_usable(t)) {
        let name = Release::parse(&tool.tool_id).map_or_else(|| tool.tool_id.clone(), |r| r.name);
        let keep = newest
            .get(&name)
            .is_none_or(|kept| registry_core::release_order(&kept.tool_id, &tool.tool_id).is_lt());
        if keep {
            newest.insert(name, tool);
        }
    }
    newest.into_values().map(Arc::clone).collect()
}
