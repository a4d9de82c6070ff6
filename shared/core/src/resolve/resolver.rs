//! The resolution algorithm (SPEC sections 4 to 7), pure: for the agent, then each
//! collaborator recursively: lifecycle, access rules, rollout, tool overrides, then each
//! tool's lifecycle and access rules (with `request.toolId` set).

use std::sync::Arc;

use registry_access::{PreparedContext, RequestContext};

use crate::model::{AgentDefinition, Lifecycle, LifecycleStatus, ToolDefinition};
use crate::resolve::bedrock::{ActionGroup, CollaboratorConfiguration, agent_name};
use crate::resolve::compiled::RuleCache;
use crate::resolve::definitions::Definitions;
use crate::resolve::error::ResolveError;
use crate::resolve::resolution::{Resolution, ResolvedAgent};
use crate::resolve::trace::{AgentOutcome, AgentTrace, OverrideTrace, ToolOutcome, ToolTrace};
use crate::resolve::warning::{Warning, WarningCode};
use crate::rollout;

/// Collaborators are resolved this many levels below the agent; deeper ones are left
/// out with a `DEPTH_LIMIT` warning.
pub const MAX_COLLABORATOR_DEPTH: usize = 3;
/// Most agents in one resolution, collaborators at every level counted each time they
/// appear; collaborators past it are left out (`TOO_LARGE`).
pub const MAX_RESOLVED_AGENTS: usize = 64;
/// Most action groups in one resolution, counted like agents.
pub const MAX_RESOLVED_ACTION_GROUPS: usize = 1_000;

/// A collaborator resolved once in a resolution, reused wherever it appears.
#[derive(Clone)]
struct Resolved {
    trace: AgentTrace,
    agent: Option<Arc<ResolvedAgent>>,
    /// Agents and action groups in its subtree, itself included.
    agents: usize,
    groups: usize,
}

/// Resolves `agent_id` for the caller in `ctx`, over definitions already fetched and
/// compiled forms from `cache`. The agent being unavailable is an error; tools and
/// collaborators the caller may not use are left out and named in the trace.
pub fn resolve<D, C>(
    defs: &D,
    cache: &C,
    agent_id: &str,
    ctx: &RequestContext,
) -> Result<Resolution, ResolveError>
where
    D: Definitions + ?Sized,
    C: RuleCache + ?Sized,
{
    let agent = defs
        .agent(agent_id)
        .ok_or_else(|| ResolveError::NotFound { agent_id: agent_id.to_owned() })?;
    let prepared = PreparedContext::new(ctx).map_err(ResolveError::InvalidContext)?;
    let mut run = Run {
        defs,
        cache,
        ctx,
        prepared,
        warnings: Vec::new(),
        path: Vec::new(),
        resolved: std::collections::HashMap::new(),
    };
    let (trace, resolved) = run.agent(agent, 0);
    match resolved {
        Some(agent) => Ok(Resolution { agent: agent.agent, warnings: run.warnings, trace }),
        None => Err(match (trace.outcome, trace.access.clone()) {
            (AgentOutcome::Denied, Some(decision)) => {
                ResolveError::Denied { decision, trace: Box::new(trace) }
            }
            (AgentOutcome::InvalidRules, _) => ResolveError::InvalidRules {
                agent_id: trace.agent_id,
                message: trace.message.unwrap_or_default(),
            },
            _ => ResolveError::NotAvailable { trace: Box::new(trace) },
        }),
    }
}

/// State of one resolution.
struct Run<'a, D: ?Sized, C: ?Sized> {
    defs: &'a D,
    cache: &'a C,
    ctx: &'a RequestContext,
    prepared: PreparedContext,
    warnings: Vec<Warning>,
    /// Agents being resolved, outermost first (cycle detection).
    path: Vec<&'a str>,
    /// Collaborators resolved so far, by id: each is resolved once per resolution.
    resolved: std::collections::HashMap<&'a str, Resolved>,
}

/// A resolved agent with the size of its subtree (itself included).
struct Subtree {
    agent: ResolvedAgent,
    agents: usize,
    groups: usize,
}

fn status(lifecycle: Option<&Lifecycle>) -> LifecycleStatus {
    lifecycle.map(|l| l.status).unwrap_or_default()
}

impl<'a, D: Definitions + ?Sized, C: RuleCache + ?Sized> Run<'a, D, C> {
    /// One agent: its trace, and the configuration when the caller may use it.
    fn agent(&mut self, agent: &'a AgentDefinition, depth: usize) -> (AgentTrace, Option<Subtree>) {
        let id = agent.agent_id.as_str();
        let mut trace = AgentTrace::new(id, AgentOutcome::Resolved);
        trace.version = agent.server.version;
        let status = status(agent.lifecycle.as_ref());
        trace.lifecycle = Some(status);
        let excluded = |mut trace: AgentTrace, outcome| {
            trace.outcome = outcome;
            (trace, None)
        };
        match status {
            LifecycleStatus::Disabled => return excluded(trace, AgentOutcome::Disabled),
            LifecycleStatus::Retired => return excluded(trace, AgentOutcome::Retired),
            LifecycleStatus::Active | LifecycleStatus::Deprecated => {}
        }

        let rules = match self.cache.agent(agent) {
            Ok(rules) => rules,
            Err(e) => {
                trace.message = Some(e.to_string());
                return excluded(trace, AgentOutcome::InvalidRules);
            }
        };
        self.prepared.set_agent_id(Some(id));
        self.prepared.set_tool_id(None);
        let decision = rules.evaluate(&self.prepared);
        let allowed = decision.is_allowed();
        trace.access = Some(decision);
        if !allowed {
            return excluded(trace, AgentOutcome::Denied);
        }

        let rollout = rollout::check(agent.rollout_policy.as_ref(), id, self.ctx);
        trace.rollout = Some(rollout);
        if !rollout.available {
            return excluded(trace, AgentOutcome::NotAvailable);
        }

        if status == LifecycleStatus::Deprecated {
            self.deprecated(id, None, agent.lifecycle.as_ref());
        }
        let action_groups = self.tools(agent, &mut trace);
        self.path.push(id);
        let own_groups = action_groups.len();
        let (collaborators, collaborator_configurations, agents, groups) =
            self.collaborators(agent, depth, own_groups, &mut trace);
        self.path.pop();
        let resolved = ResolvedAgent {
            agent_id: id.to_owned(),
            agent_name: agent_name(id),
            version: agent.server.version.unwrap_or(0),
            instruction: agent.base_prompt.clone(),
            foundation_model: agent.foundation_model.clone(),
            action_groups,
            knowledge_bases: agent.knowledge_bases.iter().flatten().map(Into::into).collect(),
            collaborators,
            collaborator_configurations,
            agent_collaboration: agent.agent_collaboration,
        };
        (trace, Some(Subtree { agent: resolved, agents, groups }))
    }

    /// The tool id to use for `listed`, after `toolOverrides`, and the id it replaces.
    fn override_of(
        &mut self,
        agent: &'a AgentDefinition,
        listed: &'a str,
        trace: &mut AgentTrace,
    ) -> (&'a str, Option<&'a str>) {
        let policy = agent.rollout_policy.as_ref();
        let to = rollout::override_tool(policy, listed);
        if to == listed {
            return (listed, None);
        }
        let target = self.defs.tool(to);
        let usable =
            target.is_some_and(|t| status(t.lifecycle.as_ref()) != LifecycleStatus::Retired);
        trace.overrides.push(OverrideTrace {
            from: listed.to_owned(),
            to: to.to_owned(),
            applied: usable,
        });
        if usable {
            return (to, Some(listed));
        }
        let why = if target.is_some() { "is retired" } else { "does not exist" };
        self.warnings.push(Warning {
            code: WarningCode::OverrideSkipped,
            agent_id: agent.agent_id.clone(),
            tool_id: Some(listed.to_owned()),
            message: format!(
                "toolOverrides of agent `{}`: `{to}` {why}, so `{listed}` is used instead",
                agent.agent_id
            ),
            deprecation_date: None,
            migration_path: None,
        });
        (listed, None)
    }

    /// The action groups of the tools the caller may use, in `toolIds` order.
    fn tools(
        &mut self,
        agent: &'a AgentDefinition,
        trace: &mut AgentTrace,
    ) -> Vec<Arc<ActionGroup>> {
        let mut groups: Vec<Arc<ActionGroup>> = Vec::with_capacity(agent.tool_ids.len());
        let mut seen: Vec<&str> = Vec::with_capacity(agent.tool_ids.len());
        trace.tools.reserve(agent.tool_ids.len());
        for listed in &agent.tool_ids {
            let (id, replaces) = self.override_of(agent, listed, trace);
            let mut entry = ToolTrace {
                tool_id: id.to_owned(),
                replaces: replaces.map(str::to_owned),
                version: None,
                action_group_name: None,
                outcome: ToolOutcome::Included,
                lifecycle: None,
                access: None,
                message: None,
            };
            entry.outcome = if seen.contains(&id) {
                ToolOutcome::Duplicate
            } else {
                seen.push(id);
                match self.defs.tool(id) {
                    None => ToolOutcome::NotFound,
                    Some(tool) => self.tool(agent, tool, &mut entry, &mut groups),
                }
            };
            trace.tools.push(entry);
        }
        self.prepared.set_tool_id(None);
        groups
    }

    /// One found tool: lifecycle, compiled form, access rules, name clash.
    fn tool(
        &mut self,
        agent: &AgentDefinition,
        tool: &ToolDefinition,
        entry: &mut ToolTrace,
        groups: &mut Vec<Arc<ActionGroup>>,
    ) -> ToolOutcome {
        entry.version = tool.server.version;
        entry.action_group_name = Some(tool.name.clone());
        let status = status(tool.lifecycle.as_ref());
        entry.lifecycle = Some(status);
        match status {
            LifecycleStatus::Disabled => return ToolOutcome::Disabled,
            LifecycleStatus::Retired => return ToolOutcome::Retired,
            LifecycleStatus::Active | LifecycleStatus::Deprecated => {}
        }
        let compiled = match self.cache.tool(tool) {
            Ok(compiled) => compiled,
            Err(e) => {
                entry.message = Some(e.to_string());
                return ToolOutcome::Invalid;
            }
        };
        self.prepared.set_tool_id(Some(&tool.tool_id));
        let decision = compiled.rules.evaluate(&self.prepared);
        let allowed = decision.is_allowed();
        entry.access = Some(decision);
        if !allowed {
            return ToolOutcome::Denied;
        }
        let name = &compiled.action_group.action_group_name;
        if groups.iter().any(|g| g.action_group_name == *name) {
            self.warnings.push(Warning {
                code: WarningCode::DuplicateActionGroup,
                agent_id: agent.agent_id.clone(),
                tool_id: Some(tool.tool_id.clone()),
                message: format!(
                    "tool `{}` is left out: another tool of agent `{}` is already named `{name}`",
                    tool.tool_id, agent.agent_id
                ),
                deprecation_date: None,
                migration_path: None,
            });
            return ToolOutcome::DuplicateName;
        }
        if status == LifecycleStatus::Deprecated {
            self.deprecated(&agent.agent_id, Some(&tool.tool_id), tool.lifecycle.as_ref());
        }
        groups.push(Arc::clone(&compiled.action_group));
        ToolOutcome::Included
    }

    /// The collaborators the caller may use, their Bedrock configurations, and the
    /// size of the agent's subtree (itself with `own_groups` action groups included).
    /// A collaborator met before in this resolution is reused, not resolved again; one
    /// that would make the subtree larger than the bounds is left out (`TOO_LARGE`).
    fn collaborators(
        &mut self,
        agent: &'a AgentDefinition,
        depth: usize,
        own_groups: usize,
        trace: &mut AgentTrace,
    ) -> (Vec<Arc<ResolvedAgent>>, Vec<CollaboratorConfiguration>, usize, usize) {
        let (mut agents, mut configs) = (Vec::new(), Vec::new());
        let (mut total_agents, mut total_groups) = (1, own_groups);
        let Some(list) = agent.collaborators.as_deref().filter(|l| !l.is_empty()) else {
            return (agents, configs, total_agents, total_groups);
        };
        if depth >= MAX_COLLABORATOR_DEPTH {
            for c in list {
                let mut t = AgentTrace::new(&c.agent_id, AgentOutcome::DepthLimit);
                t.message = Some(format!(
                    "collaborators are resolved at most {MAX_COLLABORATOR_DEPTH} levels deep"
                ));
                trace.collaborators.push(t);
            }
            self.warnings.push(Warning {
                code: WarningCode::DepthLimit,
                agent_id: agent.agent_id.clone(),
                tool_id: None,
                message: format!(
                    "the collaborators of `{}` are left out: collaborators are resolved at most \
                     {MAX_COLLABORATOR_DEPTH} levels deep",
                    agent.agent_id
                ),
                deprecation_date: None,
                migration_path: None,
            });
            return (agents, configs, total_agents, total_groups);
        }
        for c in list {
            let id = c.agent_id.as_str();
            if self.path.contains(&id) {
                let mut t = AgentTrace::new(id, AgentOutcome::Cycle);
                t.message = Some(format!(
                    "collaborator cycle: {} -> {id}; `{id}` is already being resolved",
                    self.path.join(" -> ")
                ));
                trace.collaborators.push(t);
                continue;
            }
            let done = match self.resolved.get(id) {
                Some(done) => done.clone(),
                None => {
                    let Some(definition) = self.defs.agent(id) else {
                        trace.collaborators.push(AgentTrace::new(id, AgentOutcome::NotFound));
                        continue;
                    };
                    let (t, sized) = self.agent(definition, depth + 1);
                    let done = match sized {
                        Some(s) => Resolved {
                            trace: t,
                            agent: Some(Arc::new(s.agent)),
                            agents: s.agents,
                            groups: s.groups,
                        },
                        None => Resolved { trace: t, agent: None, agents: 0, groups: 0 },
                    };
                    self.resolved.insert(id, done.clone());
                    done
                }
            };
            let Some(resolved) = done.agent else {
                trace.collaborators.push(done.trace);
                continue;
            };
            if total_agents + done.agents > MAX_RESOLVED_AGENTS
                || total_groups + done.groups > MAX_RESOLVED_ACTION_GROUPS
            {
                let mut t = AgentTrace::new(id, AgentOutcome::TooLarge);
                t.message = Some(format!(
                    "left out: a resolution holds at most {MAX_RESOLVED_AGENTS} agents and \
                     {MAX_RESOLVED_ACTION_GROUPS} action groups"
                ));
                trace.collaborators.push(t);
                self.warnings.push(Warning {
                    code: WarningCode::TooLarge,
                    agent_id: agent.agent_id.clone(),
                    tool_id: None,
                    message: format!(
                        "collaborator `{id}` of `{}` is left out: a resolution holds at most \
                         {MAX_RESOLVED_AGENTS} agents and {MAX_RESOLVED_ACTION_GROUPS} action groups",
                        agent.agent_id
                    ),
                    deprecation_date: None,
                    migration_path: None,
                });
                continue;
            }
            total_agents += done.agents;
            total_groups += done.groups;
            trace.collaborators.push(done.trace);
            configs.push(CollaboratorConfiguration {
                collaborator_name: resolved.agent_name.clone(),
                collaborator_instruction: c.instruction.clone(),
                relay_conversation_history: c.history_relay.into(),
            });
            agents.push(resolved);
        }
        (agents, configs, total_agents, total_groups)
    }

    /// Records a deprecation warning for an agent, or for one of its tools.
    fn deprecated(&mut self, agent_id: &str, tool_id: Option<&str>, lifecycle: Option<&Lifecycle>) {
        let deprecation_date = lifecycle.and_then(|l| l.deprecation_date.clone());
        let migration_path = lifecycle.and_then(|l| l.migration_path.clone());
        let mut message = match tool_id {
            Some(tool) => format!("tool `{tool}` of agent `{agent_id}` is deprecated"),
            None => format!("agent `{agent_id}` is deprecated"),
        };
        if let Some(date) = &deprecation_date {
            message.push_str(&format!("; deprecation date {date}"));
        }
        if let Some(path) = &migration_path {
            message.push_str(&format!("; migration path: {path}"));
        }
        self.warnings.push(Warning {
            code: WarningCode::Deprecated,
            agent_id: agent_id.to_owned(),
            tool_id: tool_id.map(str::to_owned),
            message,
            deprecation_date,
            migration_path,
        });
    }
}
