//! What a principal's agent grants (SPEC section 21): the tool releases resolving the
//! agent for the principal's context reaches, re-derived from the live definitions at
//! each point that takes a token (decision 98). The resolver of `registry_core`
//! decides it; this module only reads its trace, and fetches what it needs.

use std::sync::Arc;

use registry_access::PreparedContext;
use registry_core::resolve::{
    AgentOutcome, AgentTrace, Definitions, MAX_COLLABORATOR_DEPTH, ResolveError, RuleCache,
    ToolOutcome, collaborators_to_fetch, resolve_prepared, tool_names_to_fetch, tools_to_fetch,
};
use registry_core::{AgentDefinition, Definition, Kind, ToolDefinition};
use registry_store::{ListFilter, ListQuery, Referenced, Store, StoreError};

/// Most releases of one tool name read for a range.
pub const MAX_RELEASES: usize = 1_000;

/// Whether the agent of a principal grants a tool release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// Resolving the agent for the principal's context reaches the release: its own
    /// lifecycle and access rules decide next, as in resolution.
    Granted,
    /// It does not: why (the agent missing, switched off, refused to the principal, or
    /// the release not among what it reaches), for the decision log.
    NotGranted(String),
}

impl Grant {
    /// Whether the release is granted.
    pub fn is_granted(&self) -> bool {
        matches!(self, Self::Granted)
    }
}

/// What an agent grants one principal: the tool releases its resolution reaches, or
/// why it grants nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentGrant {
    /// The releases reached (the agent's and its inlined collaborators').
    Releases(std::collections::HashSet<String>),
    /// Nothing: why.
    Nothing(String),
}

impl AgentGrant {
    /// Whether the release `tool_id` is granted, as [`grant_of`] answers it.
    pub fn grant(&self, agent_id: &str, tool_id: &str) -> Grant {
        match self {
            Self::Releases(ids) if ids.contains(tool_id) => Grant::Granted,
            Self::Releases(_) => Grant::NotGranted(format!(
                "agent `{agent_id}` does not grant tool `{tool_id}` to this principal"
            )),
            Self::Nothing(why) => Grant::NotGranted(why.clone()),
        }
    }
}

/// What resolving `agent_id` over `defs` (the agent's definitions, as
/// [`fetch_definitions`] reads them; `None`: no live agent) grants the principal of
/// `context`: the agent's lifecycle, access rules and rollout, its `toolIds` with
/// ranges and overrides, and its inlined collaborators' (each with its own checks),
/// exactly as `registry_core::resolve` decides them. A release the resolution reaches
/// and leaves out for its own lifecycle or access rules is in the grant: those stages
/// of `decide` refuse it with their own reasons.
pub fn agent_grant<D, C>(
    defs: Option<&D>,
    cache: &C,
    agent_id: &str,
    context: &PreparedContext<'_>,
) -> AgentGrant
where
    D: Definitions + ?Sized,
    C: RuleCache + ?Sized,
{
    let missing = || AgentGrant::Nothing(format!("agent `{agent_id}` does not exist"));
    let Some(defs) = defs.filter(|d| d.agent(agent_id).is_some()) else { return missing() };
    match resolve_prepared(defs, cache, agent_id, context.clone()) {
        Ok(resolution) => {
            let mut ids = std::collections::HashSet::new();
            reached(&resolution.trace, &mut ids);
            AgentGrant::Releases(ids)
        }
        Err(ResolveError::NotFound { .. }) => missing(),
        Err(e) => {
            let outcome = e.outcome().map_or("INVALID_RULES", AgentOutcome::as_str);
            AgentGrant::Nothing(format!(
                "agent `{agent_id}` is not resolved for this principal ({outcome})"
            ))
        }
    }
}

/// Whether the agent `agent_id` grants the release `tool_id` to the principal of
/// `context` ([`agent_grant`] for one release).
pub fn grant_of<D, C>(
    defs: Option<&D>,
    cache: &C,
    agent_id: &str,
    context: &PreparedContext<'_>,
    tool_id: &str,
) -> Grant
where
    D: Definitions + ?Sized,
    C: RuleCache + ?Sized,
{
    agent_grant(defs, cache, agent_id, context).grant(agent_id, tool_id)
}

/// Adds the releases `trace` (an agent resolved, with its inlined collaborators)
/// reaches to `ids`.
fn reached(trace: &AgentTrace, ids: &mut std::collections::HashSet<String>) {
    let reaching = |t: &&registry_core::resolve::ToolTrace| {
        matches!(
            t.outcome,
            ToolOutcome::Included
                | ToolOutcome::Disabled
                | ToolOutcome::Retired
                | ToolOutcome::Denied
        )
    };
    ids.extend(trace.tools.iter().filter(reaching).map(|t| t.tool_id.clone()));
    for collaborator in trace.collaborators.iter().filter(|c| c.outcome == AgentOutcome::Resolved) {
        reached(collaborator, ids);
    }
}

/// The definitions a resolution reads, shared with the store: agents and tools, each
/// sorted by id.
#[derive(Debug, Clone, Default)]
pub struct Fetched {
    agents: Vec<Arc<Definition>>,
    tools: Vec<Arc<Definition>>,
}

impl Fetched {
    /// Adds (or replaces) a definition.
    pub fn insert(&mut self, definition: Arc<Definition>) {
        let list = match *definition {
            Definition::Agent(_) => &mut self.agents,
            Definition::Tool(_) => &mut self.tools,
        };
        match list.binary_search_by(|d| d.id().cmp(definition.id())) {
            Ok(at) => list[at] = definition,
            Err(at) => list.insert(at, definition),
        }
    }

    fn find<'a>(list: &'a [Arc<Definition>], id: &str) -> Option<&'a Definition> {
        let at = list.binary_search_by(|d| d.id().cmp(id)).ok()?;
        list.get(at).map(AsRef::as_ref)
    }
}

impl Definitions for Fetched {
    fn agent(&self, id: &str) -> Option<&AgentDefinition> {
        Self::find(&self.agents, id).and_then(as_agent)
    }

    fn tool(&self, id: &str) -> Option<&ToolDefinition> {
        Self::find(&self.tools, id).and_then(as_tool)
    }

    fn releases(&self, name: &str) -> Vec<&ToolDefinition> {
        self.tools
            .iter()
            .filter_map(|d| as_tool(d))
            .filter(|t| t.tool_id.strip_prefix(name).is_some_and(|rest| rest.starts_with('@')))
            .collect()
    }
}

/// Everything resolving `agent_id` may need, read from `store`: the agent with the
/// tools it names exactly (one read), its ranges' releases, and its collaborators down
/// to the depth limit with theirs (one batch per level). `Ok(None)`: no live agent.
pub async fn fetch_definitions(
    store: &dyn Store,
    agent_id: &str,
) -> Result<Option<Fetched>, StoreError> {
    let root = store.get_with_references_shared(Kind::Agent, agent_id).await?;
    let Some(Referenced { head: root, references, tools }) =
        root.filter(|r| matches!(*r.head, Definition::Agent(_)))
    else {
        return Ok(None);
    };
    let mut defs = Fetched::default();
    for tool in live_of(Kind::Tool, tools) {
        defs.insert(tool);
    }
    // Most agents name their tools exactly and have no collaborators: nothing more to read.
    if as_agent(&root).is_some_and(|agent| {
        collaborators_to_fetch(agent).next().is_none() && tool_names_to_fetch(agent).is_empty()
    }) {
        defs.insert(root);
        return Ok(Some(defs));
    }
    let mut asked_tools: std::collections::HashSet<String> = references.into_iter().collect();
    let mut asked_names = std::collections::HashSet::new();
    let mut asked_agents = std::collections::HashSet::from([root.id().to_owned()]);
    let mut level = vec![root];
    for depth in 0..=MAX_COLLABORATOR_DEPTH {
        // The root's were read with it: `tools_to_fetch` is `references`.
        let tool_ids: Vec<String> = if depth == 0 {
            Vec::new()
        } else {
            level
                .iter()
                .filter_map(|d| as_agent(d))
                .flat_map(tools_to_fetch)
                .filter(|id| asked_tools.insert(id.clone()))
                .collect()
        };
        for found in get_many(store, Kind::Tool, &tool_ids).await? {
            defs.insert(found);
        }
        let names: Vec<String> = level
            .iter()
            .filter_map(|d| as_agent(d))
            .flat_map(tool_names_to_fetch)
            .filter(|name| asked_names.insert(name.clone()))
            .collect();
        for name in names {
            for tool in live_releases(store, &name).await? {
                defs.insert(Arc::new(Definition::Tool(tool)));
            }
        }
        let next: Vec<String> = if depth < MAX_COLLABORATOR_DEPTH {
            level
                .iter()
                .filter_map(|d| as_agent(d))
                .flat_map(collaborators_to_fetch)
                .filter(|id| asked_agents.insert((*id).to_owned()))
                .map(str::to_owned)
                .collect()
        } else {
            Vec::new()
        };
        for agent in level.drain(..) {
            defs.insert(agent);
        }
        level = get_many(store, Kind::Agent, &next).await?;
        if level.is_empty() {
            break;
        }
    }
    Ok(Some(defs))
}

/// Every live release of the tool `name` (full definitions; at most [`MAX_RELEASES`]),
/// read through the store's name index.
pub async fn live_releases(
    store: &dyn Store,
    name: &str,
) -> Result<Vec<ToolDefinition>, StoreError> {
    let mut query = ListQuery {
        limit: 100,
        cursor: None,
        filter: ListFilter { name: Some(name.to_owned()), ..ListFilter::default() },
    };
    let mut out = Vec::new();
    loop {
        let page = store.list(Kind::Tool, &query).await?;
        out.extend(page.items.into_iter().filter_map(|d| match d {
            Definition::Tool(t) => Some(t),
            Definition::Agent(_) => None,
        }));
        match page.next_cursor {
            Some(next) if out.len() < MAX_RELEASES => query.cursor = Some(next),
            _ => return Ok(out),
        }
    }
}

/// The live definitions of `kind` among `ids` (one batch read; none for an empty list).
async fn get_many(
    store: &dyn Store,
    kind: Kind,
    ids: &[String],
) -> Result<Vec<Arc<Definition>>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(live_of(kind, store.get_many_shared(kind, ids).await?).collect())
}

/// The live definitions of `kind` among the answers of a batch read.
fn live_of(
    kind: Kind,
    found: Vec<Option<Arc<Definition>>>,
) -> impl Iterator<Item = Arc<Definition>> {
    found.into_iter().flatten().filter(move |d| d.kind() == kind)
}

fn as_agent(definition: &Definition) -> Option<&AgentDefinition> {
    match definition {
        Definition::Agent(agent) => Some(agent),
        Definition::Tool(_) => None,
    }
}

fn as_tool(definition: &Definition) -> Option<&ToolDefinition> {
    match definition {
        Definition::Tool(tool) => Some(tool),
        Definition::Agent(_) => None,
    }
}
