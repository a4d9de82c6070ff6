//! The resolution algorithm (SPEC sections 4 to 7), pure: for the agent, then each
//! collaborator: lifecycle, access rules, rollout, tool overrides, then each tool's
//! lifecycle and access rules (with `request.toolId` set). The result has the shape of
//! Bedrock's `InvokeInlineAgent`: collaborators are inlined one level deep.

/// Why a collaborator's own collaborator without an alias is left out.
const DEPTH_MESSAGE: &str = "inline agents nest one level of collaborators; give it an \
                             `agentAliasArn` (a published alias) to use it at this depth";

use std::sync::Arc;

use registry_access::{PreparedContext, RequestContext};

use crate::model::{
    AgentCollaboration, AgentDefinition, AgentLimits, BedrockSettings, InferenceConfiguration,
    Lifecycle, LifecycleStatus, ToolDefinition,
};
use crate::release::{Release, ToolRef, choose_release};
use crate::resolve::bedrock::{ActionGroup, CollaboratorConfiguration, agent_name, unique_name};
use crate::resolve::compiled::RuleCache;
use crate::resolve::definitions::Definitions;
use crate::resolve::encoded::Encoded;
use crate::resolve::error::ResolveError;
use crate::resolve::gate::{ToolAccess, tool_access};
use crate::resolve::resolution::{BedrockAgent, InlineAgent, Resolution};
use crate::resolve::trace::{
    AgentOutcome, AgentTrace, OverrideTrace, SkippedRelease, ToolOutcome, ToolTrace,
};
use crate::resolve::warning::{Warning, WarningCode};
use crate::rollout;

/// Levels of collaborators below the agent whose definitions a resolution reads: the
/// inlined collaborators (1) and their own collaborators (2), which inline agents can
/// only call through an `agentAliasArn`; deeper ones are never read.
pub const MAX_COLLABORATOR_DEPTH: usize = 2;

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
    if defs.agent(agent_id).is_none() {
        return Err(ResolveError::NotFound { agent_id: agent_id.to_owned() });
    }
    let prepared = PreparedContext::new(ctx).map_err(ResolveError::InvalidContext)?;
    resolve_prepared(defs, cache, agent_id, prepared)
}

/// [`resolve`] for a context already prepared (for example read straight from the
/// request's JSON with [`PreparedContext::read_json`]).
pub fn resolve_prepared<D, C>(
    defs: &D,
    cache: &C,
    agent_id: &str,
    prepared: PreparedContext<'_>,
) -> Result<Resolution, ResolveError>
where
    D: Definitions + ?Sized,
    C: RuleCache + ?Sized,
{
    let agent = defs
        .agent(agent_id)
        .ok_or_else(|| ResolveError::NotFound { agent_id: agent_id.to_owned() })?;
    let mut run = Run { defs, cache, prepared, warnings: Vec::new(), path: Vec::new() };
    let mut trace = run.admit(agent);
    if trace.outcome != AgentOutcome::Resolved {
        return Err(match (trace.outcome, trace.access.clone()) {
            (AgentOutcome::Denied, Some(decision)) => {
                ResolveError::Denied { decision: Box::new(decision), trace: Box::new(trace) }
            }
            (AgentOutcome::InvalidRules, _) => ResolveError::InvalidRules {
                agent_id: trace.agent_id,
                message: trace.message.unwrap_or_default(),
            },
            _ => ResolveError::NotAvailable { trace: Box::new(trace) },
        });
    }
    let (agent_config, collaborators) = run.body(agent, 0, &mut trace);
    let inline_agent = InlineAgent {
        agent: agent_config,
        collaborators,
        orchestration: agent.orchestration.clone(),
        inline_session_state: None,
    };
    Ok(Resolution {
        inline_agent,
        agent_id: agent.agent_id.clone(),
        version: agent.server.version.unwrap_or(0),
        warnings: run.warnings,
        trace,
        session_id: None,
    })
}

/// State of one resolution.
struct Run<'a, 'c, D: ?Sized, C: ?Sized> {
    defs: &'a D,
    cache: &'a C,
    prepared: PreparedContext<'c>,
    warnings: Vec<Warning>,
    /// Agents being resolved, outermost first (cycle detection).
    path: Vec<&'a str>,
}

/// The agent's Bedrock settings with `limits.maxTotalOutputTokens` applied as Bedrock's
/// `maximumLength` to every prompt step the agent configures (the smaller value wins).
fn capped(bedrock: &BedrockSettings, limits: Option<&AgentLimits>) -> BedrockSettings {
    let mut out = bedrock.clone();
    let Some(max) = limits.and_then(|l| l.max_total_output_tokens) else { return out };
    let max = u32::try_from(max).unwrap_or(u32::MAX);
    for step in
        out.prompt_override_configuration.iter_mut().flat_map(|p| &mut p.prompt_configurations)
    {
        let inference = step.inference_configuration.get_or_insert(InferenceConfiguration {
            maximum_length: None,
            stop_sequences: None,
            temperature: None,
            top_k: None,
            top_p: None,
        });
        inference.maximum_length = Some(inference.maximum_length.map_or(max, |m| m.min(max)));
    }
    out
}

fn status(lifecycle: Option<&Lifecycle>) -> LifecycleStatus {
    lifecycle.map(|l| l.status).unwrap_or_default()
}

impl<'a, D: Definitions + ?Sized, C: RuleCache + ?Sized> Run<'a, '_, D, C> {
    /// Whether the caller may use `agent` (lifecycle, access rules, rollout): its trace
    /// so far, with the outcome `RESOLVED` when it may, else the reason it may not.
    fn admit(&mut self, agent: &'a AgentDefinition) -> AgentTrace {
        let id = agent.agent_id.as_str();
        let mut trace = AgentTrace::new(id, AgentOutcome::Resolved);
        trace.version = agent.server.version;
        trace.limits.clone_from(&agent.limits);
        let status = status(agent.lifecycle.as_ref());
        trace.lifecycle = Some(status);
        let excluded = |mut trace: AgentTrace, outcome| {
            trace.outcome = outcome;
            trace
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

        let rollout = rollout::check(agent.rollout_policy.as_ref(), id, &self.prepared);
        trace.rollout = Some(rollout);
        if !rollout.available {
            return excluded(trace, AgentOutcome::NotAvailable);
        }

        if status == LifecycleStatus::Deprecated {
            self.deprecated(id, None, agent.lifecycle.as_ref());
        }
        trace
    }

    /// The Bedrock configuration of an admitted agent at `depth` (0: the agent asked
    /// for, 1: an inlined collaborator), and the collaborators to inline (depth 0 only).
    fn body(
        &mut self,
        agent: &'a AgentDefinition,
        depth: usize,
        trace: &mut AgentTrace,
    ) -> (BedrockAgent, Vec<Arc<BedrockAgent>>) {
        let action_groups = self.tools(agent, trace);
        self.path.push(agent.agent_id.as_str());
        let (inline, configurations) = self.collaborators(agent, depth, trace);
        self.path.pop();
        let agent_collaboration = (!configurations.is_empty())
            .then(|| agent.agent_collaboration.unwrap_or(AgentCollaboration::Supervisor));
        let config = BedrockAgent {
            agent_name: agent_name(&agent.agent_id),
            foundation_model: agent.foundation_model.clone().unwrap_or_default(),
            instruction: agent.base_prompt.clone(),
            action_groups,
            knowledge_bases: agent.knowledge_bases.iter().flatten().map(Into::into).collect(),
            collaborator_configurations: configurations,
            agent_collaboration,
            bedrock: capped(&agent.bedrock, agent.limits.as_ref()),
        };
        (config, inline)
    }

    /// The tool reference to use for `listed`, after `toolOverrides`, and the one it
    /// replaces. A target is usable when it names a tool (or, for a range, a release)
    /// that is not retired.
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
        let candidates: Vec<&ToolDefinition> = match ToolRef::parse(to) {
            Ok(ToolRef::Exact(id)) => self.defs.tool(&id).into_iter().collect(),
            Ok(ToolRef::Range { name, req }) => self
                .defs
                .releases(&name)
                .into_iter()
                .filter(|t| Release::parse(&t.tool_id).is_some_and(|r| req.matches(&r.version)))
                .collect(),
            Err(_) => Vec::new(),
        };
        let usable =
            candidates.iter().any(|t| status(t.lifecycle.as_ref()) != LifecycleStatus::Retired);
        trace.overrides.push(OverrideTrace {
            from: listed.to_owned(),
            to: to.to_owned(),
            applied: usable,
        });
        if usable {
            return (to, Some(listed));
        }
        let why = if candidates.is_empty() { "does not exist" } else { "is retired" };
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

    /// The release a reference names: itself when exact; for a range, the one
    /// [`choose_release`] picks among the live releases, recorded in `entry`.
    fn release_for(&self, reference: &str, entry: &mut ToolTrace) -> Option<String> {
        match ToolRef::parse(reference) {
            Ok(ToolRef::Exact(id)) => Some(id),
            Err(_) => Some(reference.to_owned()),
            Ok(ToolRef::Range { name, req }) => {
                let releases = self.defs.releases(&name);
                let choice = choose_release(
                    &req,
                    releases.iter().map(|t| (t.tool_id.as_str(), status(t.lifecycle.as_ref()))),
                );
                entry.range = Some(reference.to_owned());
                entry.skipped_releases = choice
                    .skipped
                    .into_iter()
                    .map(|(tool_id, reason)| SkippedRelease { tool_id, reason })
                    .collect();
                choice.chosen
            }
        }
    }

    /// The action groups of the tools the caller may use, in `toolIds` order.
    fn tools(
        &mut self,
        agent: &'a AgentDefinition,
        trace: &mut AgentTrace,
    ) -> Vec<Arc<Encoded<ActionGroup>>> {
        let mut groups: Vec<Arc<Encoded<ActionGroup>>> = Vec::with_capacity(agent.tool_ids.len());
        let mut seen: Vec<String> = Vec::with_capacity(agent.tool_ids.len());
        trace.tools.reserve(agent.tool_ids.len());
        for listed in &agent.tool_ids {
            let (reference, replaces) = self.override_of(agent, listed, trace);
            let mut entry = ToolTrace {
                tool_id: reference.to_owned(),
                range: None,
                skipped_releases: Vec::new(),
                replaces: replaces.map(str::to_owned),
                version: None,
                action_group_name: None,
                outcome: ToolOutcome::Included,
                lifecycle: None,
                access: None,
                message: None,
            };
            entry.outcome = match self.release_for(reference, &mut entry) {
                None => ToolOutcome::NoMatchingRelease,
                Some(id) if seen.contains(&id) => {
                    entry.tool_id = id;
                    ToolOutcome::Duplicate
                }
                Some(id) => {
                    entry.tool_id.clone_from(&id);
                    let found = self.defs.tool(&id);
                    seen.push(id);
                    match found {
                        None => ToolOutcome::NotFound,
                        Some(tool) => self.tool(agent, tool, &mut entry, &mut groups),
                    }
                }
            };
            trace.tools.push(entry);
        }
        self.prepared.set_tool_id(None);
        groups
    }

    /// One found tool: compiled form, lifecycle and access rules ([`tool_access`]),
    /// name clash.
    fn tool(
        &mut self,
        agent: &AgentDefinition,
        tool: &ToolDefinition,
        entry: &mut ToolTrace,
        groups: &mut Vec<Arc<Encoded<ActionGroup>>>,
    ) -> ToolOutcome {
        entry.version = tool.server.version;
        entry.action_group_name = Some(tool.name.clone());
        let status = status(tool.lifecycle.as_ref());
        entry.lifecycle = Some(status);
        let compiled = match self.cache.tool(tool) {
            Ok(compiled) => compiled,
            Err(e) => {
                entry.message = Some(e.to_string());
                return ToolOutcome::Invalid;
            }
        };
        match tool_access(tool, &compiled.rules, &mut self.prepared, false).0 {
            ToolAccess::SwitchedOff(LifecycleStatus::Retired) => return ToolOutcome::Retired,
            ToolAccess::SwitchedOff(_) => return ToolOutcome::Disabled,
            ToolAccess::Decided(decision) => {
                let allowed = decision.is_allowed();
                entry.access = Some(decision);
                if !allowed {
                    return ToolOutcome::Denied;
                }
            }
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

    /// The collaborators of `agent` (at `depth`) the caller may use: those to inline
    /// (only below the agent asked for) and a configuration for each, named uniquely
    /// among its siblings. A collaborator with an `agentAliasArn` is called through
    /// that alias; below depth 0, only such collaborators can be expressed.
    fn collaborators(
        &mut self,
        agent: &'a AgentDefinition,
        depth: usize,
        trace: &mut AgentTrace,
    ) -> (Vec<Arc<BedrockAgent>>, Vec<CollaboratorConfiguration>) {
        let (mut inline, mut configs) = (Vec::new(), Vec::<CollaboratorConfiguration>::new());
        for c in agent.collaborators.iter().flatten() {
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
            if depth > 0 && c.agent_alias_arn.is_none() {
                let mut t = AgentTrace::new(id, AgentOutcome::DepthLimit);
                t.message = Some(DEPTH_MESSAGE.to_owned());
                trace.collaborators.push(t);
                self.warnings.push(Warning {
                    code: WarningCode::DepthLimit,
                    agent_id: agent.agent_id.clone(),
                    tool_id: None,
                    message: format!(
                        "collaborator `{id}` of `{}` is left out: {DEPTH_MESSAGE}",
                        agent.agent_id
                    ),
                    deprecation_date: None,
                    migration_path: None,
                });
                continue;
            }
            let Some(definition) = self.defs.agent(id) else {
                trace.collaborators.push(AgentTrace::new(id, AgentOutcome::NotFound));
                continue;
            };
            let mut t = self.admit(definition);
            if t.outcome != AgentOutcome::Resolved {
                trace.collaborators.push(t);
                continue;
            }
            let taken: Vec<&str> = configs.iter().map(|c| c.collaborator_name.as_str()).collect();
            let name = unique_name(&agent_name(id), &taken);
            match &c.agent_alias_arn {
                Some(arn) => {
                    t.message = Some(format!("called through its alias {arn}"));
                }
                None => {
                    let (mut config, _) = self.body(definition, depth + 1, &mut t);
                    config.agent_name = name.clone();
                    inline.push(Arc::new(config));
                }
            }
            trace.collaborators.push(t);
            configs.push(CollaboratorConfiguration {
                collaborator_name: name,
                collaborator_instruction: c.instruction.clone(),
                relay_conversation_history: c.history_relay.into(),
                agent_alias_arn: c.agent_alias_arn.clone(),
            });
        }
        (inline, configs)
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
