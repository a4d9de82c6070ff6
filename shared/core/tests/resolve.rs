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
        "basePrompt": format!("You are {id}, an agent that answers the team's questions."),
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
    if let Ok(r) = &result {
        conform(r);
    }
    result
}

/// Asserts that the resolution's `inlineAgent`, with the per-call members a runtime
/// adds, is an `InvokeInlineAgentRequest` in AWS's own model.
fn conform(r: &registry_core::resolve::Resolution) {
    let mut request = serde_json::to_value(&r.inline_agent).unwrap();
    request["sessionId"] = json!("s-1");
    request["inputText"] = json!("hello");
    aws_conformance::Model::bedrock_agent_runtime().assert("InvokeInlineAgentRequest", &request);
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
                {"id": "KB00000001", "description": "Docs", "supportedAgentFrameworks": ["bedrock"]},
                {"id": "KB00000002", "description": "Filtered", "supportedAgentFrameworks": ["bedrock"],
                 "numberOfResults": 5, "filter": {"equals": {"key": "team", "value": "x"}}}
            ],
            "agentCollaboration": "SUPERVISOR"
        }),
    );
    let d = defs(vec![agent], vec![tool("weather-basic"), mcp, inline]);
    let r = run(&d, "weather", &internal()).unwrap();
    assert_eq!(r.version, 7);
    assert_eq!(r.agent_id, "weather");
    assert_eq!(
        r.inline_agent.agent.instruction,
        "You are weather, an agent that answers the team's questions."
    );
    assert_eq!(r.inline_agent.agent.foundation_model, "anthropic.claude-3-haiku-20240307-v1:0");
    let names: Vec<&str> =
        r.inline_agent.agent.action_groups.iter().map(|g| g.action_group_name.as_str()).collect();
    assert_eq!(names, ["weather_basic", "forecast", "calc"]);
    assert!(
        matches!(&r.inline_agent.agent.action_groups[0].action_group_executor, ActionGroupExecutor::Lambda(arn) if arn.ends_with(":function:weather-basic"))
    );
    for g in &r.inline_agent.agent.action_groups[1..] {
        assert_eq!(
            g.action_group_executor,
            ActionGroupExecutor::CustomControl(CustomControl::ReturnControl)
        );
    }
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);

    let whole = serde_json::to_value(&r).unwrap();
    assert_eq!(whole["agentId"], "weather");
    assert_eq!(whole["version"], 7);
    let v = &whole["inlineAgent"];
    assert_eq!(v["agentName"], "weather");
    assert_eq!(v["instruction"], "You are weather, an agent that answers the team's questions.");
    // No collaborators: no collaboration mode is emitted.
    assert!(v.get("agentCollaboration").is_none(), "{v}");
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
    assert_eq!(
        v["knowledgeBases"][0],
        json!({"knowledgeBaseId": "KB00000001", "description": "Docs"})
    );
    assert_eq!(
        v["knowledgeBases"][1]["retrievalConfiguration"]["vectorSearchConfiguration"],
        json!({"numberOfResults": 5, "filter": {"equals": {"key": "team", "value": "x"}}})
    );
    assert_eq!(whole["trace"]["outcome"], "RESOLVED");
    assert_eq!(whole["trace"]["access"]["reason"], "NO_RULES");
    assert_eq!(whole["trace"]["rollout"]["reason"], "NO_POLICY");
    assert_eq!(whole["trace"]["tools"][0]["outcome"], "INCLUDED");
    // round trip
    let back: registry_core::resolve::Resolution = serde_json::from_value(whole).unwrap();
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
    assert_eq!(r.inline_agent.agent.action_groups.len(), 1);
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
        r.inline_agent.agent.action_groups.iter().map(|g| g.action_group_name.as_str()).collect();
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
        r.inline_agent.agent.action_groups.iter().map(|g| g.action_group_name.as_str()).collect();
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
    assert_eq!(r.inline_agent.agent.action_groups.len(), 1);
    let t = r.trace.tool("premium-only").unwrap();
    assert_eq!(t.outcome, ToolOutcome::Denied);
    assert_eq!(t.access.as_ref().unwrap().reason, ReasonCode::NoMatch);
    let r = run(&d, "a", &ctx(json!({"customData": {"tier": "premium"}}))).unwrap();
    assert_eq!(r.inline_agent.agent.action_groups.len(), 2);
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
    assert_eq!(r.inline_agent.agent.action_groups.len(), 1);
    assert_eq!(r.trace.tool("t2").unwrap().outcome, ToolOutcome::DuplicateName);
    assert_eq!(r.warnings[0].code, WarningCode::DuplicateActionGroup);
}

fn collab(ids: &[&str]) -> Value {
    let list: Vec<Value> = ids.iter()
        .map(|id| json!({"agentId": id, "instruction": format!("Ask {id}."), "historyRelay": "TO_COLLABORATOR"}))
        .collect();
    json!({"collaborators": list, "agentCollaboration": "SUPERVISOR"})
}

#[test]
fn collaborators_whose_ids_derive_one_bedrock_name_stay_distinct() {
    let d = defs(
        vec![
            agent_with("boss", &[], collab(&["team.x", "team-x"])),
            agent_with("team.x", &[], json!({})),
            agent_with("team-x", &[], json!({})),
        ],
        vec![],
    );
    let r = run(&d, "boss", &internal()).unwrap();
    let v = serde_json::to_value(&r).unwrap();
    let v = &v["inlineAgent"];
    assert_eq!(v["collaboratorConfigurations"][0]["collaboratorName"], "team-x");
    assert_eq!(v["collaboratorConfigurations"][1]["collaboratorName"], "team-x-2");
    // Each configuration names the collaborator it belongs to.
    assert_eq!(v["collaborators"][0]["agentName"], "team-x");
    assert_eq!(v["collaborators"][1]["agentName"], "team-x-2");
    assert_eq!(r.trace.collaborators[1].agent_id, "team-x");
}

#[test]
fn collaborators_resolve_with_their_own_checks() {
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
    assert_eq!(r.inline_agent.collaborators.len(), 1);
    let helper = &r.inline_agent.collaborators[0];
    assert_eq!(helper.agent_name, "helper");
    assert_eq!(helper.instruction, "You are helper, an agent that answers the team's questions.");
    assert_eq!(helper.action_groups.len(), 1);
    let config = &r.inline_agent.agent.collaborator_configurations[0];
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
    let v = &v["inlineAgent"];
    assert_eq!(v["agentCollaboration"], "SUPERVISOR");
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
    assert_eq!(r.inline_agent.collaborators.len(), 1);
    assert!(r.inline_agent.collaborators[0].collaborator_configurations.is_empty());
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
fn collaborators_of_collaborators_need_an_alias_and_are_never_inlined() {
    // a0 -> a1 -> (a2 inline: left out; a3 through its alias) ; a3 -> a4 is never read
    let alias = "arn:aws:bedrock:us-east-1:123456789012:agent-alias/AGENT00003/ALIAS00003";
    let mut a1 = collab(&["a2", "a3"]);
    a1["collaborators"][1]["agentAliasArn"] = json!(alias);
    let d = defs(
        vec![
            agent_with("a0", &[], collab(&["a1"])),
            agent_with("a1", &["t"], a1),
            agent_with("a2", &[], json!({})),
            agent_with("a3", &[], collab(&["a4"])),
            agent_with("a4", &[], json!({})),
        ],
        vec![tool("t")],
    );
    let r = run(&d, "a0", &internal()).unwrap();
    assert_eq!(r.inline_agent.collaborators.len(), 1);
    let a1 = &r.inline_agent.collaborators[0];
    assert_eq!(a1.agent_name, "a1");
    assert_eq!(a1.action_groups.len(), 1);
    assert_eq!(a1.collaborator_configurations.len(), 1);
    assert_eq!(a1.collaborator_configurations[0].collaborator_name, "a3");
    assert_eq!(a1.collaborator_configurations[0].agent_alias_arn.as_deref(), Some(alias));
    assert_eq!(a1.agent_collaboration, Some(registry_core::AgentCollaboration::Supervisor));
    let t = r.trace.collaborator("a1").unwrap();
    assert_eq!(t.collaborator("a2").unwrap().outcome, AgentOutcome::DepthLimit);
    let a3 = t.collaborator("a3").unwrap();
    assert_eq!(a3.outcome, AgentOutcome::Resolved);
    assert!(a3.collaborators.is_empty(), "a3's own collaborators are never read");
    assert_eq!(r.warnings.len(), 1);
    assert_eq!(r.warnings[0].code, WarningCode::DepthLimit);
    assert_eq!(r.warnings[0].agent_id, "a1");
    assert!(r.warnings[0].message.contains("agentAliasArn"), "{}", r.warnings[0].message);
    assert_eq!(MAX_COLLABORATOR_DEPTH, 2);
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
    assert!(r.inline_agent.agent.action_groups.is_empty());
    let t = r.trace.tool("t").unwrap();
    assert_eq!(t.outcome, ToolOutcome::Invalid);
    assert!(t.message.as_deref().unwrap().contains("/0/condition"));
}

#[test]
fn a_refreshed_snapshot_reflects_changes_and_reuses_compiled_entries() {
    let agents = vec![agent_with("a", &["t"], json!({"accessRules": internal_only()}))];
    let live = LiveSnapshot::new(Snapshot::new(agents.clone(), vec![tool("t")]));
    let before = live.current();
    assert_eq!(before.resolve("a", &internal()).unwrap().inline_agent.agent.action_groups.len(), 1);
    assert!(before.resolve("a", &external()).is_err());

    let mut disabled = tool_with("t", json!({"lifecycle": {"status": "disabled"}}));
    disabled.server.version = Some(2);
    live.replace(before.refresh(agents, vec![disabled]));
    let r = live.current().resolve("a", &internal()).unwrap();
    assert!(r.inline_agent.agent.action_groups.is_empty());
    assert_eq!(r.trace.tool("t").unwrap().outcome, ToolOutcome::Disabled);
    // the old snapshot, still held, is unchanged
    assert_eq!(before.resolve("a", &internal()).unwrap().inline_agent.agent.action_groups.len(), 1);
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

/// A mesh of 32 agents, each collaborating with 10 others: one level is inlined, so at
/// most 1 + 10 agents are evaluated and the rest is named in the trace.
#[test]
fn a_collaborator_mesh_resolves_one_level_and_stays_small() {
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
    conform(&r);
    let evaluated = cache.1.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(evaluated, 11, "the agent and its 10 collaborators");
    assert_eq!(r.inline_agent.collaborators.len(), 10);
    assert!(r.inline_agent.collaborators.iter().all(|c| c.collaborator_configurations.is_empty()));
    assert!(r.warnings.iter().all(|w| w.code == WarningCode::DepthLimit));
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.len() < 1 << 20, "{} bytes", json.len());
}

/// Every Bedrock setting the model takes comes out where `InvokeInlineAgent` expects it,
/// on the agent and on an inlined collaborator (checked against AWS's model by `run`).
#[test]
fn every_bedrock_setting_reaches_the_inline_agent() {
    let settings = json!({
        "description": "Answers weather questions.",
        "guardrailConfiguration": {"guardrailIdentifier": "gr1abc", "guardrailVersion": "3"},
        "idleSessionTTLInSeconds": 900,
        "customerEncryptionKeyArn": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
        "promptOverrideConfiguration": {"promptConfigurations": [{
            "promptType": "ORCHESTRATION", "promptCreationMode": "OVERRIDDEN", "promptState": "ENABLED",
            "basePromptTemplate": "{\"system\": \"$instruction$\"}",
            "inferenceConfiguration": {"temperature": 0.2, "topP": 0.9, "topK": 250, "maximumLength": 2048}
        }]},
        "knowledgeBases": [{"id": "KB12345678", "description": "Travel guides", "supportedAgentFrameworks": ["bedrock"],
            "numberOfResults": 5, "overrideSearchType": "HYBRID",
            "filter": {"orAll": [{"equals": {"key": "lang", "value": "en"}}, {"in": {"key": "year", "value": [2024, 2025]}}]},
            "rerankingConfiguration": {"type": "BEDROCK_RERANKING_MODEL", "bedrockRerankingConfiguration": {
                "modelConfiguration": {"modelArn": "arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0"},
                "numberOfRerankedResults": 3,
                "metadataConfiguration": {"selectionMode": "SELECTIVE",
                    "selectiveModeConfiguration": {"fieldsToInclude": [{"fieldName": "title"}]}}}}}]
    });
    let mut boss = settings.clone();
    merge(&mut boss, collab(&["helper"]));
    merge(
        &mut boss,
        json!({"agentCollaboration": "SUPERVISOR_ROUTER", "orchestrationType": "DEFAULT",
               "bedrockModelConfigurations": {"performanceConfig": {"latency": "optimized"}}}),
    );
    let d = defs(
        vec![agent_with("boss", &["t"], boss), agent_with("helper", &["t"], settings)],
        vec![tool("t")],
    );
    let r = run(&d, "boss", &internal()).unwrap();
    let v = serde_json::to_value(&r.inline_agent).unwrap();
    assert_eq!(v["agentCollaboration"], "SUPERVISOR_ROUTER");
    assert_eq!(v["orchestrationType"], "DEFAULT");
    assert_eq!(v["bedrockModelConfigurations"]["performanceConfig"]["latency"], "optimized");
    for agent in [&v, &v["collaborators"][0]] {
        assert_eq!(agent["guardrailConfiguration"]["guardrailVersion"], "3");
        assert_eq!(agent["idleSessionTTLInSeconds"], 900);
        assert!(agent["customerEncryptionKeyArn"].is_string());
        assert_eq!(
            agent["promptOverrideConfiguration"]["promptConfigurations"][0]["promptType"],
            "ORCHESTRATION"
        );
        let search =
            &agent["knowledgeBases"][0]["retrievalConfiguration"]["vectorSearchConfiguration"];
        assert_eq!(search["overrideSearchType"], "HYBRID");
        assert_eq!(search["filter"]["orAll"][1]["in"]["value"], json!([2024, 2025]));
        assert_eq!(
            search["rerankingConfiguration"]["bedrockRerankingConfiguration"]["numberOfRerankedResults"],
            3
        );
        assert!(
            agent.get("description").is_none(),
            "description is not an InvokeInlineAgent member"
        );
    }
    // Top-level-only members stay off the collaborator.
    assert!(v["collaborators"][0].get("orchestrationType").is_none());
    // The members come out in the order they always did (the settings are flattened
    // in place), on the inline agent and on the collaborator.
    let order = |json: &str, keys: &[&str]| {
        let at: Vec<usize> =
            keys.iter().map(|k| json.find(&format!("\"{k}\":")).unwrap()).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{keys:?} at {at:?} in {json}");
    };
    let own = [
        "agentName",
        "foundationModel",
        "instruction",
        "actionGroups",
        "knowledgeBases",
        "guardrailConfiguration",
        "idleSessionTTLInSeconds",
        "promptOverrideConfiguration",
        "customerEncryptionKeyArn",
    ];
    order(&serde_json::to_string(&r.inline_agent.collaborators[0]).unwrap(), &own);
    let mut all = own.to_vec();
    all.splice(5..5, ["collaboratorConfigurations", "agentCollaboration"]);
    all.extend(["collaborators", "orchestrationType", "bedrockModelConfigurations"]);
    order(&serde_json::to_string(&r.inline_agent).unwrap(), &all);
}
