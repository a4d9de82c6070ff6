#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Resolution rules (SPEC sections 4 to 7), one test per rule, over real compiled CEL
//! rules: lifecycle, agent access, rollout, tool overrides, per-tool lifecycle and
//! access, collaborators (recursion, cycles, depth limit), snapshots.

use registry_core::resolve::{
    ActionGroupExecutor, AgentOutcome, BoundedCache, CustomControl, DefinitionMap, LiveSnapshot,
    MAX_COLLABORATOR_DEPTH, ResolveError, Snapshot, ToolOutcome, WarningCode, resolve,
};
use registry_core::{AgentDefinition, ReasonCode, RequestContext, ToolDefinition};
use serde_json::{Value, json};

fn tool_with(id: &str, extra: Value) -> ToolDefinition {
    let mut v = json!({
        "toolId": id,
        "version": 1,
        "executionType": "lambda",
        "name": id.replace(['-', '@', '.'], "_"),
        "displayName": id,
        "description": format!("Tool {id}."),
        "supportedAgentFrameworks": ["bedrock"],
        "lambdaArn": format!("arn:aws:lambda:us-east-1:123456789012:function:{}", id.replace('@', "-")),
        "functionSchema": [{
            "name": "run",
            "description": "Runs it.",
            "parameters": {"city": {"description": "City", "type": "string", "required": true}}
        }]
    });
    merge(&mut v, extra);
    serde_json::from_value(v).unwrap()
}

fn tool(id: &str) -> ToolDefinition {
    tool_with(id, json!({}))
}

fn agent_with(id: &str, tools: &[&str], extra: Value) -> AgentDefinition {
    let mut v = json!({
        "agentId": id,
        "version": 1,
        "basePrompt": format!("You are {id}."),
        "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
        "toolIds": tools,
    });
    merge(&mut v, extra);
    serde_json::from_value(v).unwrap()
}

fn merge(target: &mut Value, extra: Value) {
    if let (Some(t), Value::Object(e)) = (target.as_object_mut(), extra) {
        t.extend(e);
    }
}

fn ctx(v: Value) -> RequestContext {
    serde_json::from_value(v).unwrap()
}

fn internal() -> RequestContext {
    ctx(json!({
        "user": {"userId": "u-1", "userType": "internal-user", "roles": ["analyst"]},
        "account": {"accountId": "acct-1"},
        "request": {"region": "us-east-1"}
    }))
}

fn external() -> RequestContext {
    ctx(
        json!({"user": {"userId": "u-2", "userType": "external-user"}, "account": {"accountId": "acct-2"}}),
    )
}

fn defs(agents: Vec<AgentDefinition>, tools: Vec<ToolDefinition>) -> DefinitionMap {
    let mut d = DefinitionMap::default();
    agents.into_iter().for_each(|a| d.insert_agent(a));
    tools.into_iter().for_each(|t| d.insert_tool(t));
    d
}

fn run(
    d: &DefinitionMap,
    id: &str,
    c: &RequestContext,
) -> Result<registry_core::resolve::Resolution, ResolveError> {
    let result = resolve(d, &BoundedCache::default(), id, c);
    // the snapshot path gives the same answer
    let snapshot = Snapshot::new(d.agents.values().cloned(), d.tools.values().cloned());
    assert_eq!(snapshot.resolve(id, c), result);
    result
}

fn internal_only() -> Value {
    json!([{"effect": "allow", "condition": "user.userType == 'internal-user'"}])
}

#[test]
fn resolves_to_the_inline_agent_shape() {
    let mcp = tool_with(
        "forecast",
        json!({"executionType": "mcp", "url": "https://mcp.example.com/f", "lambdaArn": null}),
    );
    let inline = tool_with(
        "calc",
        json!({"executionType": "inline", "code": "export default () => 1", "lambdaArn": null}),
    );
    let agent = agent_with(
        "weather",
        &["weather-basic", "forecast", "calc"],
        json!({
            "version": 7,
            "knowledgeBases": [
                {"id": "KB1", "description": "Docs", "supportedAgentFrameworks": ["bedrock"]},
                {"id": "KB2", "description": "Filtered", "supportedAgentFrameworks": ["bedrock"],
                 "numberOfResults": 5, "filter": {"equals": {"key": "team", "value": "x"}}}
            ],
            "agentCollaboration": "supervisor"
        }),
    );
    let d = defs(vec![agent], vec![tool("weather-basic"), mcp, inline]);
    let r = run(&d, "weather", &internal()).unwrap();
    assert_eq!(r.agent.version, 7);
    assert_eq!(r.agent.instruction, "You are weather.");
    assert_eq!(r.agent.foundation_model.as_deref(), Some("anthropic.claude-3-haiku-20240307-v1:0"));
    let names: Vec<&str> =
        r.agent.action_groups.iter().map(|g| g.action_group_name.as_str()).collect();
    assert_eq!(names, ["weather_basic", "forecast", "calc"]);
    assert!(
        matches!(&r.agent.action_groups[0].action_group_executor, ActionGroupExecutor::Lambda(arn) if arn.ends_with(":function:weather-basic"))
    );
    for g in &r.agent.action_groups[1..] {
        assert_eq!(
            g.action_group_executor,
            ActionGroupExecutor::CustomControl(CustomControl::ReturnControl)
        );
    }
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);

    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["agentId"], "weather");
    assert_eq!(v["agentName"], "weather");
    assert_eq!(v["instruction"], "You are weather.");
    assert_eq!(v["agentCollaboration"], "supervisor");
    let g = &v["actionGroups"][0];
    assert_eq!(g["actionGroupName"], "weather_basic");
    assert_eq!(g["description"], "Tool weather-basic.");
    assert!(g["actionGroupExecutor"]["lambda"].is_string());
    assert_eq!(g["functionSchema"]["functions"][0]["name"], "run");
    assert_eq!(g["functionSchema"]["functions"][0]["parameters"]["city"]["type"], "string");
    assert_eq!(
        v["actionGroups"][1]["actionGroupExecutor"],
        json!({"customControl": "RETURN_CONTROL"})
    );
    assert_eq!(v["knowledgeBases"][0], json!({"knowledgeBaseId": "KB1", "description": "Docs"}));
    assert_eq!(
        v["knowledgeBases"][1]["retrievalConfiguration"]["vectorSearchConfiguration"],
        json!({"numberOfResults": 5, "filter": {"equals": {"key": "team", "value": "x"}}})
    );
    assert_eq!(v["trace"]["outcome"], "RESOLVED");
    assert_eq!(v["trace"]["access"]["reason"], "NO_RULES");
    assert_eq!(v["trace"]["rollout"]["reason"], "NO_POLICY");
    assert_eq!(v["trace"]["tools"][0]["outcome"], "INCLUDED");
    // round trip
    let back: registry_core::resolve::Resolution = serde_json::from_value(v).unwrap();
    assert_eq!(back, r);
}

#[test]
fn agent_lifecycle_disabled_and_retired_are_not_available() {
    for (status, outcome) in
        [("disabled", AgentOutcome::Disabled), ("retired", AgentOutcome::Retired)]
    {
        let d = defs(vec![agent_with("a", &[], json!({"lifecycle": {"status": status}}))], vec![]);
        let err = run(&d, "a", &internal()).unwrap_err();
        assert!(matches!(err, ResolveError::NotAvailable { .. }), "{err:?}");
        assert_eq!(err.outcome(), Some(outcome));
        // lifecycle comes first: rules are not even evaluated
        assert!(err.trace().unwrap().access.is_none());
    }
    assert!(matches!(
        run(&defs(vec![], vec![]), "nope", &internal()),
        Err(ResolveError::NotFound { .. })
    ));
}

#[test]
fn deprecated_agent_is_served_with_a_warning() {
    let lifecycle = json!({"lifecycle": {"status": "deprecated", "deprecationDate": "2027-01-31",
        "migrationPath": "use weather-v2"}});
    let d = defs(vec![agent_with("a", &[], lifecycle)], vec![]);
    let r = run(&d, "a", &internal()).unwrap();
    assert_eq!(r.warnings.len(), 1);
    let w = &r.warnings[0];
    assert_eq!(w.code, WarningCode::Deprecated);
    assert_eq!(w.deprecation_date.as_deref(), Some("2027-01-31"));
    assert_eq!(w.migration_path.as_deref(), Some("use weather-v2"));
    assert!(
        w.message.contains("2027-01-31") && w.message.contains("use weather-v2"),
        "{}",
        w.message
    );
}

#[test]
fn agent_access_rules_decide_with_the_decision_in_the_error() {
    let d = defs(vec![agent_with("a", &[], json!({"accessRules": internal_only()}))], vec![]);
    let r = run(&d, "a", &internal()).unwrap();
    assert_eq!(r.trace.access.unwrap().reason, ReasonCode::RuleMatch);
    let err = run(&d, "a", &external()).unwrap_err();
    let ResolveError::Denied { decision, trace } = &err else { panic!("{err:?}") };
    assert_eq!(decision.reason, ReasonCode::NoMatch);
    assert_eq!(trace.outcome, AgentOutcome::Denied);

    // an erroring deny rule denies (fail closed) and reports the error
    let rules = json!([{"effect": "deny", "condition": "customData.tier == 'blocked'"}, {"effect": "allow"}]);
    let d = defs(vec![agent_with("a", &[], json!({"accessRules": rules}))], vec![]);
    let ResolveError::Denied { decision, .. } = run(&d, "a", &internal()).unwrap_err() else {
        panic!()
    };
    assert_eq!(decision.reason, ReasonCode::Error);
    assert_eq!(decision.errors.len(), 1);
}

#[test]
fn rules_see_the_agent_and_tool_ids() {
    let agent_rule = json!([{"effect": "allow", "condition": "request.agentId == 'a'"}]);
    let tool_rule = json!([{"effect": "allow", "condition": "request.toolId == 't1' && request.agentId == 'a'"}]);
    let d = defs(
        vec![agent_with("a", &["t1", "t2"], json!({"accessRules": agent_rule}))],
        vec![
            tool_with("t1", json!({"accessRules": tool_rule.clone()})),
            tool_with("t2", json!({"accessRules": tool_rule})),
        ],
    );
    let r = run(&d, "a", &ctx(json!({"request": {"agentId": "other", "toolId": "t2"}}))).unwrap();
    assert_eq!(r.agent.action_groups.len(), 1);
    assert_eq!(r.trace.tool("t2").unwrap().outcome, ToolOutcome::Denied);
}

#[test]
fn rollout_comes_after_access_and_leaves_callers_out_with_the_reason() {
    use registry_core::rollout::RolloutReason;
    let policy = |p: Value| json!({"rolloutPolicy": p});
    let check = |extra: Value, c: &RequestContext| {
        let d = defs(vec![agent_with("a", &[], extra)], vec![]);
        run(&d, "a", c).map(|r| r.trace.rollout.unwrap().reason).map_err(|e| {
            let t = e.trace().unwrap().clone();
            (t.outcome, t.rollout.map(|r| r.reason))
        })
    };
    let c = internal();
    assert_eq!(
        check(policy(json!({"regionRestrictions": ["eu-west-1"]})), &c),
        Err((AgentOutcome::NotAvailable, Some(RolloutReason::RegionNotAllowed)))
    );
    assert_eq!(
        check(policy(json!({"regionRestrictions": ["us-east-1"]})), &c),
        Ok(RolloutReason::Unrestricted)
    );
    assert_eq!(
        check(policy(json!({"betaAccounts": ["acct-1"]})), &c),
        Ok(RolloutReason::BetaAccount)
    );
    assert_eq!(
        check(policy(json!({"betaAccounts": ["acct-9"]})), &c),
        Err((AgentOutcome::NotAvailable, Some(RolloutReason::NotBetaAccount)))
    );
    assert_eq!(
        check(policy(json!({"percentage": 0})), &c),
        Err((AgentOutcome::NotAvailable, Some(RolloutReason::OutOfRollout)))
    );
    assert_eq!(check(policy(json!({"percentage": 100})), &c), Ok(RolloutReason::InPercentage));
    // access is checked first: a denied caller is denied, whatever the rollout says
    let both = json!({"accessRules": internal_only(), "rolloutPolicy": {"percentage": 0}});
    assert_eq!(check(both, &external()), Err((AgentOutcome::Denied, None)));
}

#[test]
fn tool_overrides_replace_tools_or_are_skipped_with_a_warning() {
    let overrides = json!({"rolloutPolicy": {"toolOverrides": {"old": "new", "keep": "gone", "ret": "retired-new"}}});
    let d = defs(
        vec![agent_with("a", &["old", "keep", "ret"], overrides)],
        vec![
            tool("old"),
            tool("new"),
            tool("keep"),
            tool("ret"),
            tool_with("retired-new", json!({"lifecycle": {"status": "retired"}})),
        ],
    );
    let r = run(&d, "a", &internal()).unwrap();
    let names: Vec<&str> =
        r.agent.action_groups.iter().map(|g| g.action_group_name.as_str()).collect();
    assert_eq!(names, ["new", "keep", "ret"]);
    let new = r.trace.tool("new").unwrap();
    assert_eq!(new.replaces.as_deref(), Some("old"));
    assert!(r.trace.tool("old").is_none());
    let applied: Vec<(&str, bool)> =
        r.trace.overrides.iter().map(|o| (o.from.as_str(), o.applied)).collect();
    assert_eq!(applied, [("old", true), ("keep", false), ("ret", false)]);
    let skipped: Vec<&str> = r
        .warnings
        .iter()
        .filter(|w| w.code == WarningCode::OverrideSkipped)
        .map(|w| w.tool_id.as_deref().unwrap())
        .collect();
    assert_eq!(skipped, ["keep", "ret"]);
    assert!(r.warnings[0].message.contains("does not exist"), "{}", r.warnings[0].message);
    assert!(r.warnings[1].message.contains("is retired"), "{}", r.warnings[1].message);
}

#[test]
fn tools_left_out_by_lifecycle_or_absence_are_traced() {
    let d = defs(
        vec![agent_with("a", &["ok", "missing", "off", "gone", "old", "ok"], json!({}))],
        vec![
            tool("ok"),
            tool_with("off", json!({"lifecycle": {"status": "disabled"}})),
            tool_with("gone", json!({"lifecycle": {"status": "retired"}})),
            tool_with(
                "old",
                json!({"lifecycle": {"status": "deprecated", "migrationPath": "use ok"}}),
            ),
        ],
    );
    let r = run(&d, "a", &internal()).unwrap();
    let names: Vec<&str> =
        r.agent.action_groups.iter().map(|g| g.action_group_name.as_str()).collect();
    assert_eq!(names, ["ok", "old"]);
    let outcomes: Vec<ToolOutcome> = r.trace.tools.iter().map(|t| t.outcome).collect();
    use ToolOutcome::*;
    assert_eq!(outcomes, [Included, NotFound, Disabled, Retired, Included, Duplicate]);
    assert_eq!(r.warnings.len(), 1);
    assert_eq!(r.warnings[0].code, WarningCode::Deprecated);
    assert_eq!(r.warnings[0].tool_id.as_deref(), Some("old"));
    assert_eq!(r.warnings[0].migration_path.as_deref(), Some("use ok"));
}

#[test]
fn denied_tools_are_left_out_and_named_in_the_trace() {
    let premium = json!([{"effect": "allow", "condition": "customData.tier == 'premium'"}]);
    let d = defs(
        vec![agent_with("a", &["basic", "premium-only"], json!({}))],
        vec![tool("basic"), tool_with("premium-only", json!({"accessRules": premium}))],
    );
    let r = run(&d, "a", &ctx(json!({"customData": {"tier": "free"}}))).unwrap();
    assert_eq!(r.agent.action_groups.len(), 1);
    let t = r.trace.tool("premium-only").unwrap();
    assert_eq!(t.outcome, ToolOutcome::Denied);
    assert_eq!(t.access.as_ref().unwrap().reason, ReasonCode::NoMatch);
    let r = run(&d, "a", &ctx(json!({"customData": {"tier": "premium"}}))).unwrap();
    assert_eq!(r.agent.action_groups.len(), 2);
    // a missing field errors; an erroring allow rule does not match: still denied
    let r = run(&d, "a", &ctx(json!({}))).unwrap();
    let t = r.trace.tool("premium-only").unwrap();
    assert_eq!(t.outcome, ToolOutcome::Denied);
    assert_eq!(t.access.as_ref().unwrap().errors.len(), 1);
}

#[test]
fn tools_sharing_an_action_group_name_keep_the_first() {
    let d = defs(
        vec![agent_with("a", &["t1", "t2"], json!({}))],
        vec![tool_with("t1", json!({"name": "same"})), tool_with("t2", json!({"name": "same"}))],
    );
    let r = run(&d, "a", &internal()).unwrap();
    assert_eq!(r.agent.action_groups.len(), 1);
    assert_eq!(r.trace.tool("t2").unwrap().outcome, ToolOutcome::DuplicateName);
    assert_eq!(r.warnings[0].code, WarningCode::DuplicateActionGroup);
}

fn collab(ids: &[&str]) -> Value {
    let list: Vec<Value> = ids.iter()
        .map(|id| json!({"agentId": id, "instruction": format!("Ask {id}."), "historyRelay": "TO_COLLABORATOR"}))
        .collect();
    json!({"collaborators": list, "agentCollaboration": "supervisor"})
}

#[test]
fn collaborators_resolve_recursively_with_their_own_checks() {
    let d = defs(
        vec![
            agent_with("boss", &["t"], collab(&["helper", "secret", "later", "off", "ghost"])),
            agent_with("helper", &["t", "locked"], json!({})),
            agent_with("secret", &[], json!({"accessRules": [{"effect": "deny"}]})),
            agent_with("later", &[], json!({"rolloutPolicy": {"percentage": 0}})),
            agent_with("off", &[], json!({"lifecycle": {"status": "disabled"}})),
        ],
        vec![tool("t"), tool_with("locked", json!({"accessRules": [{"effect": "deny"}]}))],
    );
    let r = run(&d, "boss", &internal()).unwrap();
    assert_eq!(r.agent.collaborators.len(), 1);
    let helper = &r.agent.collaborators[0];
    assert_eq!(helper.agent_id, "helper");
    assert_eq!(helper.instruction, "You are helper.");
    assert_eq!(helper.action_groups.len(), 1);
    let config = &r.agent.collaborator_configurations[0];
    assert_eq!(config.collaborator_name, "helper");
    assert_eq!(config.collaborator_instruction, "Ask helper.");
    let outcomes: Vec<(&str, AgentOutcome)> =
        r.trace.collaborators.iter().map(|c| (c.agent_id.as_str(), c.outcome)).collect();
    use AgentOutcome::*;
    assert_eq!(
        outcomes,
        [
            ("helper", Resolved),
            ("secret", Denied),
            ("later", NotAvailable),
            ("off", Disabled),
            ("ghost", NotFound)
        ]
    );
    assert_eq!(
        r.trace.collaborator("helper").unwrap().tool("locked").unwrap().outcome,
        ToolOutcome::Denied
    );
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["collaboratorConfigurations"][0]["relayConversationHistory"], "TO_COLLABORATOR");
    assert_eq!(v["collaborators"][0]["actionGroups"][0]["actionGroupName"], "t");
}

#[test]
fn a_collaborator_cycle_terminates_and_the_trace_says_so() {
    let d = defs(
        vec![agent_with("a", &[], collab(&["b"])), agent_with("b", &[], collab(&["a", "b"]))],
        vec![],
    );
    let r = run(&d, "a", &internal()).unwrap();
    assert_eq!(r.agent.collaborators.len(), 1);
    assert!(r.agent.collaborators[0].collaborators.is_empty());
    let b = r.trace.collaborator("b").unwrap();
    assert_eq!(b.outcome, AgentOutcome::Resolved);
    let back = b.collaborator("a").unwrap();
    assert_eq!(back.outcome, AgentOutcome::Cycle);
    assert!(back.message.as_deref().unwrap().contains("a -> b -> a"), "{:?}", back.message);
    assert_eq!(b.collaborator("b").unwrap().outcome, AgentOutcome::Cycle);
    // resolving b first: the cycle is cut at b
    let r = run(&d, "b", &internal()).unwrap();
    assert_eq!(
        r.trace.collaborator("a").unwrap().collaborator("b").unwrap().outcome,
        AgentOutcome::Cycle
    );
}

#[test]
fn collaborators_deeper_than_the_limit_are_left_out_with_a_warning() {
    // chain a0 -> a1 -> ... -> a5
    let n = MAX_COLLABORATOR_DEPTH + 2;
    let agents = (0..=n)
        .map(|i| {
            let next = format!("a{}", i + 1);
            let extra = if i < n { collab(&[next.as_str()]) } else { json!({}) };
            agent_with(&format!("a{i}"), &[], extra)
        })
        .collect();
    let d = defs(agents, vec![]);
    let r = run(&d, "a0", &internal()).unwrap();
    let mut depth = 0;
    let mut node = &r.agent;
    while let Some(next) = node.collaborators.first() {
        node = next;
        depth += 1;
    }
    assert_eq!(depth, MAX_COLLABORATOR_DEPTH);
    let mut t = &r.trace;
    for _ in 0..MAX_COLLABORATOR_DEPTH {
        t = &t.collaborators[0];
    }
    assert_eq!(t.collaborators[0].outcome, AgentOutcome::DepthLimit);
    assert_eq!(r.warnings.len(), 1);
    assert_eq!(r.warnings[0].code, WarningCode::DepthLimit);
    assert_eq!(r.warnings[0].agent_id, format!("a{MAX_COLLABORATOR_DEPTH}"));
}

#[test]
fn bad_contexts_and_unusable_stored_rules_fail_closed() {
    let d = defs(vec![agent_with("a", &[], json!({}))], vec![]);
    let roles: Vec<String> = (0..1000).map(|i| format!("r{i}")).collect();
    let err = run(&d, "a", &ctx(json!({"user": {"roles": roles}}))).unwrap_err();
    let ResolveError::InvalidContext(errors) = err else { panic!("{err:?}") };
    assert_eq!(errors[0].path, "/user/roles");

    // rules that would no longer compile (stored before a rule change, or corrupt)
    let bad = json!([{"effect": "allow", "condition": "user.userType = 'x'"}]);
    let d = defs(
        vec![
            agent_with("a", &["t"], json!({"accessRules": bad.clone()})),
            agent_with("b", &["t"], json!({})),
        ],
        vec![tool_with("t", json!({"accessRules": bad}))],
    );
    assert!(matches!(run(&d, "a", &internal()), Err(ResolveError::InvalidRules { .. })));
    let r = run(&d, "b", &internal()).unwrap();
    assert!(r.agent.action_groups.is_empty());
    let t = r.trace.tool("t").unwrap();
    assert_eq!(t.outcome, ToolOutcome::Invalid);
    assert!(t.message.as_deref().unwrap().contains("/0/condition"));
}

#[test]
fn a_refreshed_snapshot_reflects_changes_and_reuses_compiled_entries() {
    let agents = vec![agent_with("a", &["t"], json!({"accessRules": internal_only()}))];
    let live = LiveSnapshot::new(Snapshot::new(agents.clone(), vec![tool("t")]));
    let before = live.current();
    assert_eq!(before.resolve("a", &internal()).unwrap().agent.action_groups.len(), 1);
    assert!(before.resolve("a", &external()).is_err());

    let mut disabled = tool_with("t", json!({"lifecycle": {"status": "disabled"}}));
    disabled.server.version = Some(2);
    live.replace(before.refresh(agents, vec![disabled]));
    let r = live.current().resolve("a", &internal()).unwrap();
    assert!(r.agent.action_groups.is_empty());
    assert_eq!(r.trace.tool("t").unwrap().outcome, ToolOutcome::Disabled);
    // the old snapshot, still held, is unchanged
    assert_eq!(before.resolve("a", &internal()).unwrap().agent.action_groups.len(), 1);
}

/// Counts the agents the resolver evaluates.
struct Counting(BoundedCache, std::sync::atomic::AtomicUsize);

impl registry_core::resolve::RuleCache for Counting {
    fn agent(
        &self,
        agent: &AgentDefinition,
    ) -> Result<std::sync::Arc<registry_access::RuleSet>, registry_core::resolve::CompileError>
    {
        self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.0.agent(agent)
    }
    fn tool(
        &self,
        tool: &ToolDefinition,
    ) -> Result<
        std::sync::Arc<registry_core::resolve::CompiledTool>,
        registry_core::resolve::CompileError,
    > {
        self.0.tool(tool)
    }
}

/// A mesh of 32 agents, each collaborating with 10 others: each agent is resolved at
/// most once, and the resolution stays within its bounds, the rest left out with
/// `TOO_LARGE` and a warning.
#[test]
fn a_collaborator_mesh_is_resolved_once_per_agent_and_bounded() {
    use registry_core::resolve::{MAX_RESOLVED_AGENTS, ResolvedAgent};
    let names: Vec<String> = (0..32).map(|i| format!("mesh-{i}")).collect();
    let agents: Vec<AgentDefinition> = (0..32)
        .map(|i| {
            let others: Vec<&str> = (1..=10).map(|k| names[(i + k) % 32].as_str()).collect();
            agent_with(&names[i], &["t@1"], collab(&others))
        })
        .collect();
    let d = defs(agents, vec![tool("t@1")]);
    let cache = Counting(BoundedCache::default(), Default::default());
    let r = resolve(&d, &cache, "mesh-0", &internal()).unwrap();
    let evaluated = cache.1.load(std::sync::atomic::Ordering::Relaxed);
    assert!(evaluated <= 32, "{evaluated} agent evaluations for 32 agents");
    fn count(a: &ResolvedAgent) -> usize {
        1 + a.collaborators.iter().map(|c| count(c)).sum::<usize>()
    }
    let total = count(&r.agent);
    assert!(total <= MAX_RESOLVED_AGENTS, "{total} agents in the resolution");
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.len() < 2 << 20, "{} bytes", json.len());

    // A tree of 1 + 10 + 100 distinct agents is over the bound: what does not fit is
    // left out, named in the trace and a warning.
    let mut agents = Vec::new();
    let mids: Vec<String> = (0..10).map(|i| format!("mid-{i}")).collect();
    for (i, mid) in mids.iter().enumerate() {
        let leaves: Vec<String> = (0..10).map(|k| format!("leaf-{i}-{k}")).collect();
        for leaf in &leaves {
            agents.push(agent_with(leaf, &["t@1"], json!({})));
        }
        let refs: Vec<&str> = leaves.iter().map(String::as_str).collect();
        agents.push(agent_with(mid, &["t@1"], collab(&refs)));
    }
    let refs: Vec<&str> = mids.iter().map(String::as_str).collect();
    agents.push(agent_with("root", &["t@1"], collab(&refs)));
    let d = defs(agents, vec![tool("t@1")]);
    let r = resolve(&d, &BoundedCache::default(), "root", &internal()).unwrap();
    let total = count(&r.agent);
    assert!(total <= MAX_RESOLVED_AGENTS && total > 50, "{total} agents in the resolution");
    assert!(r.warnings.iter().any(|w| w.code == WarningCode::TooLarge), "{:?}", r.warnings);
    assert!(r.trace.collaborators.iter().any(|c| c.outcome == AgentOutcome::TooLarge));
}
