//! One table of calls, run through every enforcement point of the registry's decision
//! (`registry_policy::decide`): `POST /tools/{id}/authorize` over HTTP against the real
//! router, the guarded example tool under a Lambda Runtime API (its rules in a table of
//! the local DynamoDB-API server), the same tool's guard in remote mode (asking that
//! router, with the event's principal token), the in-process return-of-control authorizer (`RuleSetAuthorizer`, counting in the
//! same table), the AgentCore Gateway interceptor under a Lambda Runtime API (REQUEST
//! `tools/call` events, the token in the `Authorization` header), agentgateway's ExtMCP
//! server over real gRPC on loopback (its gateway reading and counting in the same
//! table), and the resolver for the access part. Every point that can express a case must answer the
//! same effect, outcome, stage and deciding rule; where a point cannot, the table says
//! why, case by case ([`cannot`]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use bedrock_action_group::return_control::Operation;
use bedrock_action_group::{ControlCall, Parameter};
use registry_access::RequestContext;
use registry_api::{AppState, Registry, Role, TokenFile, router, serve};
use registry_config::names;
use registry_core::resolve::{AgentOutcome, BoundedCache, DefinitionMap, ToolOutcome, resolve};
use registry_core::{AgentDefinition, Definition, ToolDefinition};
use registry_e2e::agentcore;
use registry_e2e::principal::{self as tokens, guard_env, other_ring, ring};
use registry_e2e::{Lambda, Table};
use registry_guard::{AuthorizeError, RuleSetAuthorizer};
use registry_store::{Expected, Store};
use registry_store_dynamodb::DynamoStore;
use registry_token::SESSION_ATTRIBUTE;
use serde_json::{Value, json};

use registry_ext_mcp::proto::authorization_error::Code;
use registry_ext_mcp::proto::ext_mcp_client::ExtMcpClient;
use registry_ext_mcp::proto::{
    McpHeader, McpRequest, McpResponse, mcp_request_result, mcp_response_result,
};
use registry_gateway::{DecisionPoint, DecisionRecord, Gateway, GatewayConfig, StoreSource};

/// An agent without limits, and one allowed one tool call per session.
const PLAIN_AGENT: &str = "table-plain";
const BUDGET_AGENT: &str = "table-budget";

// ---------------------------------------------------------------------------------
// The tools: the example tool's schema and call rules, with what each case varies.

/// The example tool (`convert`: value, from, to, precision), as `id`, with `patch`
/// merged in (RFC 7386: `null` removes).
fn tool(id: &str, patch: Value) -> ToolDefinition {
    let mut tool: Value =
        serde_json::from_str(include_str!("../../cli/example/convert-units.json")).unwrap();
    tool["toolId"] = json!(format!("{id}@1.0.0"));
    tool["name"] = json!(id);
    merge(&mut tool, patch);
    serde_json::from_value(tool).unwrap()
}

fn merge(target: &mut Value, patch: Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    t.remove(&k);
                } else {
                    merge(t.entry(k).or_insert(Value::Null), v);
                }
            }
        }
        (t, p) => *t = p,
    }
}

fn lifecycle(status: &str) -> Value {
    json!({"lifecycle": {"status": status}})
}

/// The tools of the table, by short name: the call stages' and the grant's.
fn tools() -> Vec<(&'static str, ToolDefinition)> {
    let mut all = base_tools();
    all.extend(grant_tools());
    all
}

/// The tools the grant's cases call (SPEC section 21): each named by the agents of
/// [`grant_agents`] only, or by none.
fn grant_tools() -> Vec<(&'static str, ToolDefinition)> {
    vec![
        // in no agent
        ("hidden", tool("t_hidden", json!({}))),
        // agent `table-a`'s, one of them switched off after its tokens were issued
        ("a", tool("t_a", json!({}))),
        ("a_off", tool("t_a_off", lifecycle("disabled"))),
        // agent `table-b`'s only
        ("b", tool("t_b", json!({}))),
        // two releases of one name: agent `table-ranged`'s range picks the newer
        ("ranged_old", tool("t_ranged", json!({}))),
        ("ranged_new", tool("t_ranged", json!({"toolId": "t_ranged@1.1.0"}))),
        // the collaborator's
        ("collab", tool("t_collab", json!({}))),
    ]
}

/// The tools of the call stages, by short name.
fn base_tools() -> Vec<(&'static str, ToolDefinition)> {
    let access = json!({"accessRules": [
        {"id": "no-contractors", "effect": "deny",
         "condition": "has(user.userType) && user.userType == 'contractor'"},
        {"id": "would-block-interns", "effect": "deny", "mode": "log-only",
         "condition": "'intern' in user.roles"},
        {"id": "staff-only", "effect": "allow", "condition": "'staff' in user.roles"}
    ]});
    let mut access_disabled = access.clone();
    merge(&mut access_disabled, lifecycle("disabled"));
    vec![
        ("active", tool("t_active", json!({}))),
        ("deprecated", tool("t_deprecated", lifecycle("deprecated"))),
        ("disabled", tool("t_disabled", lifecycle("disabled"))),
        ("retired", tool("t_retired", lifecycle("retired"))),
        ("access", tool("t_access", access)),
        ("access_disabled", tool("t_access_disabled", access_disabled)),
        (
            "access_error",
            tool(
                "t_access_error",
                json!({"accessRules": [
                    {"id": "needs-clearance", "effect": "deny",
                     "condition": "customData.clearance != 'high'"},
                    {"id": "everyone", "effect": "allow"}
                ]}),
            ),
        ),
        (
            "small_only",
            tool(
                "t_small_only",
                json!({"callRules": [
                    {"id": "small-only", "effect": "allow", "condition": "call.arguments.value < 10.0"}
                ]}),
            ),
        ),
        (
            "call_error",
            tool(
                "t_call_error",
                json!({"callRules": [
                    {"id": "precise", "effect": "deny", "condition": "call.arguments.precision > 8"},
                    {"id": "allow-calls", "effect": "allow"}
                ]}),
            ),
        ),
        ("no_rules", tool("t_no_rules", json!({"callRules": null}))),
        (
            "rate",
            tool(
                "t_rate",
                json!({"rateLimit": {"calls": 1, "perSeconds": 3600, "key": "principal"}}),
            ),
        ),
    ]
}

fn agent(id: &str, limits: Option<Value>) -> AgentDefinition {
    // an agent may not name a retired tool
    let tool_ids: Vec<String> = base_tools()
        .iter()
        .filter(|(n, _)| *n != "retired")
        .map(|(_, t)| t.tool_id.clone())
        .collect();
    let mut agent = json!({
        "agentId": id,
        "basePrompt": "You convert units for the decision table.",
        "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
        "toolIds": tool_ids
    });
    if let Some(limits) = limits {
        agent["limits"] = limits;
    }
    serde_json::from_value(agent).unwrap()
}

fn agents() -> Vec<AgentDefinition> {
    let mut all =
        vec![agent(PLAIN_AGENT, None), agent(BUDGET_AGENT, Some(json!({"maxToolCalls": 1})))];
    all.extend(grant_agents());
    all
}

/// The agent deleted after its tokens were issued (stored, then deleted, by
/// [`World::new`]).
const DELETED_AGENT: &str = "table-deleted";

/// Agents switched off or deleted after their tokens were issued: the in-process
/// authorizer still holds them as the runtime resolved them.
const REVOKED_AGENTS: [&str; 3] = ["table-disabled", "table-retired", DELETED_AGENT];

/// The agents of the grant's cases, as stored (the revoked ones switched off).
fn grant_agents() -> Vec<AgentDefinition> {
    let t_a = "t_a@1.0.0";
    let a = |id: &str, tools: Value, more: Value| {
        let mut agent = json!({
            "agentId": id,
            "basePrompt": "You convert units for the decision table's grant.",
            "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
            "toolIds": tools
        });
        merge(&mut agent, more);
        serde_json::from_value::<AgentDefinition>(agent).unwrap()
    };
    vec![
        a("table-a", json!([t_a, "t_a_off@1.0.0"]), json!({})),
        a("table-b", json!(["t_b@1.0.0"]), json!({})),
        a(
            "table-ruled",
            json!([t_a]),
            json!({"accessRules": [
                {"id": "no-interns", "effect": "deny", "condition": "'intern' in user.roles"},
                {"id": "everyone", "effect": "allow"}
            ]}),
        ),
        a(
            "table-rollout",
            json!([t_a]),
            json!({"rolloutPolicy": {"regionRestrictions": ["eu-west-1"]}}),
        ),
        a("table-ranged", json!(["t_ranged@^1"]), json!({})),
        a(
            "table-supervisor",
            json!([t_a]),
            json!({"collaborators": [{"agentId": "table-collab",
                "instruction": "Converts for the supervisor.", "historyRelay": "TO_COLLABORATOR"}]}),
        ),
        a("table-collab", json!(["t_collab@1.0.0"]), json!({})),
        a("table-disabled", json!([t_a]), lifecycle("disabled")),
        a("table-retired", json!([t_a]), lifecycle("retired")),
        a(DELETED_AGENT, json!([t_a]), json!({"limits": {"maxToolCalls": 1}})),
    ]
}

/// The live definitions of the table's world (the deleted agent gone): what a
/// resolution reads, and what a runtime holding its resolution keeps.
fn live_definitions() -> DefinitionMap {
    let mut defs = DefinitionMap::default();
    for (_, tool) in tools() {
        defs.insert_tool(tool);
    }
    for agent in agents().into_iter().filter(|a| a.agent_id != DELETED_AGENT) {
        defs.insert_agent(agent);
    }
    defs
}

// ---------------------------------------------------------------------------------
// The cases.

/// Who calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    /// Roles `staff`, an employee.
    Staff,
    /// A staff intern (a log-only access rule would refuse).
    Intern,
    /// A contractor with the staff role.
    Contractor,
    /// No roles.
    Nobody,
    /// No signed principal context in the session (guard).
    Missing,
    /// A signed context past its expiry (guard).
    Expired,
    /// A context signed with a key the guard does not hold (guard).
    Forged,
    /// A genuine token of another session, replayed into this one (guard).
    OtherSession,
}

/// Whether the store answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Db {
    Up,
    Down,
}

/// What a point answered, or what every point must answer.
#[derive(Clone, PartialEq, Eq)]
enum Seen {
    /// A decision: effect, outcome, stage and the deciding rule.
    Decided { effect: String, outcome: String, stage: String, rule: Option<String> },
    /// The resolver's answer for a tool granted at the access stage.
    Granted,
    /// Refused before the decision: the input (principal, function or arguments) or
    /// the store.
    Refused(Before),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Before {
    Principal,
    Arguments,
    Unavailable,
}

impl fmt::Debug for Seen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Decided { effect, outcome, stage, rule } => {
                write!(f, "{effect}/{outcome} at {stage} by {}", rule.as_deref().unwrap_or("-"))
            }
            Self::Granted => write!(f, "granted at access"),
            Self::Refused(before) => write!(f, "refused before deciding: {before:?}"),
        }
    }
}

fn decided(effect: &str, outcome: &str, stage: &str, rule: Option<&str>) -> Seen {
    Seen::Decided {
        effect: effect.into(),
        outcome: outcome.into(),
        stage: stage.into(),
        rule: rule.map(str::to_owned),
    }
}

fn allow(stage: &str, rule: Option<&str>) -> Seen {
    decided("allow", "allow", stage, rule)
}

fn deny(stage: &str, rule: Option<&str>) -> Seen {
    decided("deny", "deny", stage, rule)
}

#[derive(Debug, Clone)]
struct Case {
    name: &'static str,
    tool: &'static str,
    who: Who,
    function: &'static str,
    /// The arguments, as JSON (the guard sends them as Bedrock parameters).
    args: Value,
    agent: &'static str,
    /// Whether the call belongs to a session (counted against the agent's limits).
    session: bool,
    /// Calls made first, in the same session by the same principal.
    before: usize,
    store: Db,
    expect: Seen,
}

fn case(name: &'static str, tool: &'static str, expect: Seen) -> Case {
    Case {
        name,
        tool,
        who: Who::Staff,
        function: "convert",
        args: json!({"value": 5, "from": "km", "to": "m"}),
        agent: PLAIN_AGENT,
        session: false,
        before: 0,
        store: Db::Up,
        expect,
    }
}

impl Case {
    fn who(mut self, who: Who) -> Self {
        self.who = who;
        self
    }
    fn args(mut self, args: Value) -> Self {
        self.args = args;
        self
    }
    fn value(mut self, value: f64) -> Self {
        self.args["value"] = json!(value);
        self
    }
    fn function(mut self, function: &'static str) -> Self {
        self.function = function;
        self
    }
    fn budgeted(mut self, before: usize) -> Self {
        self.agent = BUDGET_AGENT;
        self.session = true;
        self.before = before;
        self
    }
    fn before(mut self, before: usize) -> Self {
        self.before = before;
        self
    }
    fn store_down(mut self) -> Self {
        self.store = Db::Down;
        self
    }
    /// The call made with a token of `agent` (a case of the grant).
    fn by(mut self, agent: &'static str) -> Self {
        self.agent = agent;
        self
    }
    /// The call belonging to a session, after `before` calls in it.
    fn in_session(mut self, before: usize) -> Self {
        self.session = true;
        self.before = before;
        self
    }
    /// Whether this is a case of the grant (an agent of [`grant_agents`]).
    fn of_grant(&self) -> bool {
        self.agent != PLAIN_AGENT && self.agent != BUDGET_AGENT
    }
}

fn cases() -> Vec<Case> {
    let huge = 2e9;
    let call = "call";
    vec![
        // lifecycle: each state
        case("active tool, plain call", "active", allow(call, Some("allow-calls"))),
        case("deprecated tool still decides", "deprecated", allow(call, Some("allow-calls"))),
        case("disabled tool", "disabled", deny("lifecycle", None)),
        case("retired tool", "retired", deny("lifecycle", None)),
        case("disabled tool, a call rules would deny", "disabled", deny("lifecycle", None))
            .value(huge),
        case("deprecated tool, call rule denies", "deprecated", deny(call, Some("no-huge-values")))
            .value(huge),
        case("lifecycle before access", "access_disabled", deny("lifecycle", None))
            .who(Who::Nobody),
        case("lifecycle before access, even for staff", "access_disabled", deny("lifecycle", None)),
        // access rules: allow, deny, no match, error, log-only
        case("access allows staff", "access", allow(call, Some("allow-calls"))),
        case("access: no rule matches", "access", deny("access", None)).who(Who::Nobody),
        case("access: a deny rule matches", "access", deny("access", Some("no-contractors")))
            .who(Who::Contractor),
        case(
            "access: a log-only deny would refuse an intern",
            "access",
            allow(call, Some("allow-calls")),
        )
        .who(Who::Intern),
        case(
            "access error: an erroring deny rule denies",
            "access_error",
            deny("access", Some("needs-clearance")),
        ),
        case(
            "access error before a call rule",
            "access_error",
            deny("access", Some("needs-clearance")),
        )
        .value(huge),
        case("access before call rules", "access", deny("access", None))
            .who(Who::Nobody)
            .value(huge),
        case("access allows, call rule denies", "access", deny(call, Some("no-huge-values")))
            .value(huge),
        // call rules: allow, deny, no match, error, log-only
        case("call rule denies a huge value", "active", deny(call, Some("no-huge-values")))
            .value(huge),
        case(
            "call rule denies a huge negative value",
            "active",
            deny(call, Some("no-huge-values")),
        )
        .value(-huge),
        case(
            "call: a log-only rule would deny imperial units",
            "active",
            decided("allow", "would-deny", call, Some("allow-calls")),
        )
        .args(json!({"value": 5, "from": "km", "to": "mi"})),
        case("call: an optional integer argument", "active", allow(call, Some("allow-calls")))
            .args(json!({"value": 5, "from": "km", "to": "m", "precision": 2})),
        case("call: the only allow rule matches", "small_only", allow(call, Some("small-only"))),
        case("call: no rule matches", "small_only", deny(call, None)).value(50.0),
        case("call: no call rules at all", "no_rules", allow(call, None)),
        case(
            "call: a deny rule errors (absent argument)",
            "call_error",
            deny(call, Some("precise")),
        ),
        case("call: the deny rule does not match", "call_error", allow(call, Some("allow-calls")))
            .args(json!({"value": 5, "from": "km", "to": "m", "precision": 2})),
        case("call: the deny rule matches", "call_error", deny(call, Some("precise")))
            .args(json!({"value": 5, "from": "km", "to": "m", "precision": 9})),
        // budgets and rates
        case("budget: the first call of a session", "active", allow(call, Some("allow-calls")))
            .budgeted(0),
        case("budget exhausted", "active", deny("limit", None)).budgeted(1),
        case("budget exhausted, a tool without call rules", "no_rules", deny("limit", None))
            .budgeted(1),
        case(
            "budget exhausted, a call rule denies whatever the session: the rule",
            "active",
            deny(call, Some("no-huge-values")),
        )
        .budgeted(1)
        .value(huge),
        case("budget: a denied call is not counted", "active", deny(call, Some("no-huge-values")))
            .budgeted(0)
            .value(huge),
        case("budget exhausted, the tool disabled", "disabled", deny("lifecycle", None))
            .budgeted(1),
        case("budget exhausted, access denied", "access", deny("access", None))
            .budgeted(1)
            .who(Who::Nobody),
        case("rate: the first call", "rate", allow(call, Some("allow-calls"))),
        case("rate limit spent", "rate", deny("limit", None)).before(1),
        case("rate limit spent, in a session", "rate", deny("limit", None)).budgeted(0).before(1),
        // the function and its arguments
        case("unknown function", "active", Seen::Refused(Before::Arguments)).function("teleport"),
        case("unknown function of a disabled tool", "disabled", Seen::Refused(Before::Arguments))
            .function("teleport"),
        case("bad argument: not a number", "active", Seen::Refused(Before::Arguments))
            .args(json!({"value": "five", "from": "km", "to": "m"})),
        case("bad argument: a required one missing", "active", Seen::Refused(Before::Arguments))
            .args(json!({"value": 5, "from": "km"})),
        case("bad argument: not an integer", "active", Seen::Refused(Before::Arguments))
            .args(json!({"value": 5, "from": "km", "to": "m", "precision": 1.5})),
        // the principal
        case("missing principal", "active", Seen::Refused(Before::Principal)).who(Who::Missing),
        case("expired principal", "active", Seen::Refused(Before::Principal)).who(Who::Expired),
        case("forged principal", "access", Seen::Refused(Before::Principal)).who(Who::Forged),
        case("a token of another session", "active", Seen::Refused(Before::Principal))
            .who(Who::OtherSession),
        // the store
        case("store unreachable", "active", Seen::Refused(Before::Unavailable)).store_down(),
        case("store unreachable, a counted tool", "rate", Seen::Refused(Before::Unavailable))
            .store_down(),
        // the grant (SPEC section 21): what resolving the token's agent reaches
        case("grant: the agent's own tool", "a", allow(call, Some("allow-calls"))).by("table-a"),
        case("grant: a tool in no agent", "hidden", not_granted()).by("table-a"),
        case("grant: another agent's tool", "b", not_granted()).by("table-a"),
        case("grant: that agent's token for it", "b", allow(call, Some("allow-calls")))
            .by("table-b"),
        case("grant: a token replayed at another gateway target", "active", not_granted())
            .by("table-a"),
        case("grant: the agent's own rule denies the principal", "a", not_granted())
            .by("table-ruled")
            .who(Who::Intern),
        case("grant: the agent's own rule allows", "a", allow(call, Some("allow-calls")))
            .by("table-ruled"),
        case("grant: the agent's rollout leaves the caller out", "a", not_granted())
            .by("table-rollout"),
        case("grant: the release the range picks", "ranged_new", allow(call, Some("allow-calls")))
            .by("table-ranged"),
        case("grant: a range that resolves to another release", "ranged_old", not_granted())
            .by("table-ranged"),
        case("grant: an inlined collaborator's tool", "collab", allow(call, Some("allow-calls")))
            .by("table-supervisor"),
        case("grant: the collaborator's token for the supervisor's tool", "a", not_granted())
            .by("table-collab"),
        case("grant: checked before a call rule would deny", "hidden", not_granted())
            .by("table-a")
            .value(huge),
        // revocation: switched off or deleted after the token was issued
        case("revoked: the agent disabled after issue", "a", not_granted()).by("table-disabled"),
        case("revoked: the agent retired after issue", "a", not_granted()).by("table-retired"),
        case("revoked: the agent deleted after issue", "a", not_granted()).by(DELETED_AGENT),
        case("revoked: a deleted agent's session has no unlimited budget", "a", not_granted())
            .by(DELETED_AGENT)
            .in_session(2),
        case("revoked: the agent's tool disabled after issue", "a_off", deny("lifecycle", None))
            .by("table-a"),
        case(
            "revoked: the agent's tool disabled after issue, in a session",
            "a_off",
            deny("lifecycle", None),
        )
        .by("table-a")
        .in_session(1),
    ]
}

/// Whether a gateway's `tools/list` keeps a tool whose call was decided `seen`: when
/// the lifecycle, grant and access stages let the call through.
fn listed(seen: &Seen) -> bool {
    matches!(seen, Seen::Decided { stage, .. } if stage == "call" || stage == "limit")
}

/// A call outside what the token's agent grants: denied at stage `grant`, no rule.
fn not_granted() -> Seen {
    deny("grant", None)
}

// ---------------------------------------------------------------------------------
// The points.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Point {
    Authorize,
    Guard,
    /// The guard in remote mode: `REGISTRY_URL` and `REGISTRY_TOKEN`, no table.
    Remote,
    Authorizer,
    Resolver,
    /// The AgentCore Gateway interceptor, one Lambda for every tool (the tool's id is
    /// its gateway target).
    Interceptor,
    /// agentgateway's ExtMCP `CheckRequest` (`registry-ext-mcp`), the principal token in
    /// `metadata_context.token`.
    ExtMcp,
}

const POINTS: [Point; 7] = [
    Point::Authorize,
    Point::Guard,
    Point::Remote,
    Point::Authorizer,
    Point::Resolver,
    Point::Interceptor,
    Point::ExtMcp,
];

/// Why `point` cannot express `case`, or `None` when it can.
fn cannot(point: Point, case: &Case) -> Option<&'static str> {
    let signed_only =
        matches!(case.who, Who::Missing | Who::Expired | Who::Forged | Who::OtherSession);
    let revoked = REVOKED_AGENTS.contains(&case.agent);
    match point {
        Point::Guard | Point::Remote => None,
        Point::Authorize if case.session && case.agent == DELETED_AGENT => Some(
            "a body naming a session must name a live agent that uses the tool (400 at /agentId); the token form is the Remote point's",
        ),
        Point::Authorize if signed_only => {
            Some("takes the request context as sent: there is no signed principal to miss")
        }
        Point::Authorize => None,
        Point::Authorizer if signed_only => {
            Some("takes the request context as the runtime holds it: no signed principal")
        }
        Point::Authorizer if revoked => Some(
            "holds the definitions the runtime resolved with: a revocation reaches it when the runtime resolves again (decision 98)",
        ),
        Point::Authorizer if case.store == Db::Down && case.tool != "rate" => {
            Some("holds the tool in process: a call nothing counts reads no store")
        }
        Point::Authorizer => None,
        Point::Resolver if signed_only => {
            Some("resolves for the context as sent: there is no signed principal to miss")
        }
        Point::Resolver if matches!(case.expect, Seen::Refused(Before::Arguments)) => {
            Some("decides no call: it has no function or arguments to check")
        }
        Point::Resolver if case.store == Db::Down => {
            Some("pure over definitions already read: it reads no store")
        }
        Point::Resolver => None,
        Point::Interceptor if case.who == Who::OtherSession => Some(
            "the token's sid is the session: the gateway's Mcp-Session-Id names no Bedrock session to mismatch",
        ),
        Point::Interceptor => None,
        Point::ExtMcp if case.who == Who::OtherSession => Some(
            "the token's `sid` is the session it counts in: agentgateway sends no other session id to check it against (`mcp-session-id` counts only for callers known by claims)",
        ),
        Point::ExtMcp if case.function != "convert" => Some(
            "MCP names the tool, not a function of it: a name the backend's registry tool lacks is an unknown tool (`UNKNOWN_TOOL`, PERMISSION_DENIED; decision 93), not arguments to check",
        ),
        Point::ExtMcp => None,
    }
}

/// What `point` must answer for `case`: the case's expectation, or for the resolver
/// its access part (a tool the call stages decide is granted at access).
fn expected(point: Point, case: &Case) -> Seen {
    match (point, &case.expect) {
        (Point::Resolver, Seen::Decided { stage, .. }) if stage == "call" || stage == "limit" => {
            Seen::Granted
        }
        (_, expect) => expect.clone(),
    }
}

fn now_s() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

/// The request context of `who`, as user `user`.
fn context(who: Who, user: &str) -> Value {
    match who {
        Who::Intern => json!({"user": {"userId": user, "roles": ["staff", "intern"]}}),
        Who::Contractor => {
            json!({"user": {"userId": user, "userType": "contractor", "roles": ["staff"]}})
        }
        Who::Nobody => json!({"user": {"userId": user}}),
        _ => json!({"user": {"userId": user, "userType": "employee", "roles": ["staff"]}}),
    }
}

/// The world every point decides in: the definitions in a table of the local
/// DynamoDB-API server, an API server on it, the guarded example tool per tool.
struct World {
    ext_mcp: Grpc,
    ext_mcp_down: Grpc,
    table: Table,
    store: Arc<DynamoStore>,
    store_down: Arc<DynamoStore>,
    api: Api,
    api_down: Api,
    reader: String,
    guards: Vec<(String, Lambda)>,
    guard_down: Vec<(String, Lambda)>,
    remotes: Vec<(String, Lambda)>,
    remote_down: Vec<(String, Lambda)>,
    interceptor: Lambda,
    interceptor_down: Lambda,
}

/// A registry API server over HTTP (the real router), stopped on drop.
struct Api {
    base: String,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn api_server(store: Arc<dyn Store>, dir: &std::path::Path) -> Api {
    let (auth, _) = TokenFile::load_or_init(dir, None).unwrap();
    // the guards' keys: the registry verifies the tokens the table's guards verify
    let key_file = registry_api::principal_keys::FileKeyStore::in_dir(dir);
    let _ =
        registry_api::principal_keys::KeyStore::replace(&key_file, &ring().to_text(), None).await;
    let settings = registry_api::principal_keys::TokenSettings::new(tokens::ISSUER);
    let keys = registry_api::principal_keys::PrincipalKeys::open(Arc::new(key_file), settings);
    let registry = Registry::new(store).with_principal_keys(Arc::new(keys.await.unwrap()));
    let app = router(AppState::new(registry, Arc::new(auth)));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        serve(listener, app, async {
            let _ = rx.await;
        })
        .await
        .unwrap();
    });
    Api { base, _stop: tx }
}

/// The ExtMCP server over a gateway reading and counting in `store`, on a real TCP port,
/// with the decision records it wrote; stopped on drop.
struct Grpc {
    client: ExtMcpClient<tonic::transport::Channel>,
    records: Arc<std::sync::Mutex<Vec<DecisionRecord>>>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn ext_mcp_server(store: Arc<dyn Store>) -> Grpc {
    let verifier = registry_token::Verifier::from_jwks_json(
        tokens::jwks(),
        tokens::ISSUER,
        registry_token::DEFAULT_AUDIENCE,
    )
    .unwrap();
    let config = GatewayConfig::new(registry_token::KeySource::Document(Arc::new(verifier)));
    let records = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&records);
    let gateway = Gateway::new(config, StoreSource::new(store), DecisionPoint::ExtMcp)
        .with_log(move |record| sink.lock().unwrap().push(record));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let (_, gateways) = tokio::sync::watch::channel(Arc::new(gateway));
    tokio::spawn(registry_ext_mcp::serve(listener, gateways, async {
        let _ = rx.await;
    }));
    let client = ExtMcpClient::connect(format!("http://{address}")).await.unwrap();
    Grpc { client, records, _stop: tx }
}

/// An endpoint nothing listens on.
async fn closed_endpoint() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

impl World {
    async fn new(dir: &std::path::Path) -> Self {
        let store = registry_store_dynamodb::local::fresh_store("table").await.unwrap();
        for (_, tool) in tools() {
            store.put(Definition::Tool(tool), Expected::Absent).await.unwrap();
        }
        for agent in agents() {
            store.put(Definition::Agent(agent), Expected::Absent).await.unwrap();
        }
        // deleted after its tokens were issued (the table signs them itself)
        store.delete(registry_core::Kind::Agent, DELETED_AGENT, 1).await.unwrap();
        let endpoint = registry_store_dynamodb::local::endpoint().unwrap().to_owned();
        let table = Table { name: store.table().to_owned(), endpoint };
        let reader = TokenFile::add_token(dir, "table-reader", Role::Reader).unwrap();
        let store = Arc::new(store);
        let api = api_server(store.clone(), dir).await;
        let closed = closed_endpoint().await;
        let unreachable = registry_store_dynamodb::local::through(&store, &closed).await;
        let store_down = Arc::new(unreachable);
        let api_down = api_server(store_down.clone(), dir).await;
        let ext_mcp = ext_mcp_server(store.clone()).await;
        let ext_mcp_down = ext_mcp_server(store_down.clone()).await;
        let mut guards = Vec::new();
        let mut guard_down = Vec::new();
        let mut remotes = Vec::new();
        let mut remote_down = Vec::new();
        for (_, tool) in tools() {
            let id = tool.tool_id.clone();
            let [issuer, jwks] = guard_env();
            let env = [(names::TOOL_ID, id.as_str()), issuer, jwks];
            guards.push((id.clone(), guard_lambda(&table, &env, None).await));
            let remote = |base: &str| {
                let base = base.to_owned();
                let (id, reader, table) = (id.clone(), reader.clone(), table.clone());
                async move {
                    // no table: the launcher's REGISTRY_TABLE emptied
                    let env = [
                        (names::TOOL_ID, id.as_str()),
                        (names::URL, base.as_str()),
                        (names::TOKEN, reader.as_str()),
                        (names::TABLE, ""),
                    ];
                    Lambda::start("example-tool", &table, &env).await
                }
            };
            remotes.push((id.clone(), remote(&api.base).await));
            if id.starts_with("t_active@") || id.starts_with("t_rate@") {
                guard_down.push((id.clone(), guard_lambda(&table, &env, Some(&closed)).await));
                remote_down.push((id.clone(), remote(&api_down.base).await));
            }
        }
        let [issuer, jwks] = guard_env();
        let env = [issuer, jwks, (names::TABLE, table.name.as_str())];
        let interceptor = Lambda::start("gateway-interceptor", &table, &env).await;
        let mut env_down = env.to_vec();
        env_down.push((names::DYNAMODB_ENDPOINT_URL, closed.as_str()));
        let interceptor_down = Lambda::start("gateway-interceptor", &table, &env_down).await;
        Self {
            ext_mcp,
            ext_mcp_down,
            table,
            store,
            store_down,
            api,
            api_down,
            reader,
            guards,
            guard_down,
            remotes,
            remote_down,
            interceptor,
            interceptor_down,
        }
    }

    fn tool(&self, name: &str) -> ToolDefinition {
        tools().into_iter().find(|(n, _)| *n == name).unwrap().1
    }

    /// What `point` answers for `case`; `user` and `session` are the case's own.
    async fn run(&self, point: Point, case: &Case, user: &str, session: &str) -> Seen {
        let tool = self.tool(case.tool);
        match point {
            Point::Authorize => {
                for _ in 0..case.before {
                    self.authorize(case, &tool, user, session).await;
                }
                self.authorize(case, &tool, user, session).await
            }
            Point::Guard | Point::Remote => {
                for _ in 0..case.before {
                    self.guard(point, case, &tool, user, session).await;
                }
                self.guard(point, case, &tool, user, session).await
            }
            Point::Authorizer => {
                let counters: Arc<dyn Store> = match case.store {
                    Db::Up => self.store.clone(),
                    Db::Down => self.store_down.clone(),
                };
                let agent = agents().into_iter().find(|a| a.agent_id == case.agent).unwrap();
                let mut authorizer =
                    RuleSetAuthorizer::new(tool).unwrap().for_agent(agent).counting_in(counters);
                if case.of_grant() {
                    // the runtime keeps the definitions it resolved with
                    authorizer = authorizer.with_definitions(live_definitions());
                }
                if case.session {
                    authorizer = authorizer.in_session(session);
                }
                let context = context(case.who, user);
                let call = control_call(case);
                for _ in 0..case.before {
                    let _ = authorizer.decide_call(&context, &call).await;
                }
                match authorizer.decide_call(&context, &call).await {
                    Ok(d) => Seen::Decided {
                        effect: serde_json::to_value(d.effect).unwrap().as_str().unwrap().into(),
                        outcome: d.outcome.as_str().into(),
                        stage: d.stage.as_str().into(),
                        rule: d.rule_id,
                    },
                    Err(AuthorizeError::Arguments(_)) => Seen::Refused(Before::Arguments),
                    Err(AuthorizeError::Counters(_)) => Seen::Refused(Before::Unavailable),
                    Err(e) => panic!("{}: the authorizer could not decide: {e}", case.name),
                }
            }
            Point::Resolver => self.resolve(case, &tool, user),
            Point::Interceptor => {
                for _ in 0..case.before {
                    self.intercept(case, &tool, user, session).await;
                }
                self.intercept(case, &tool, user, session).await
            }
            Point::ExtMcp => {
                for _ in 0..case.before {
                    self.ext_mcp(case, &tool, user, session).await;
                }
                self.ext_mcp(case, &tool, user, session).await
            }
        }
    }

    /// `case`'s call as an AgentCore Gateway hands it to its REQUEST interceptor: the
    /// target is the tool's id, the arguments JSON as the client sent them.
    async fn intercept(
        &self,
        case: &Case,
        tool: &ToolDefinition,
        user: &str,
        session: &str,
    ) -> Seen {
        let lambda = match case.store {
            Db::Up => &self.interceptor,
            Db::Down => &self.interceptor_down,
        };
        let name = format!("{}___{}", tool.tool_id, case.function);
        let body = agentcore::tools_call(json!(1), &name, case.args.clone());
        let bearer = principal(case, user, session);
        let headers = agentcore::headers(bearer.as_deref(), Some(session));
        let before = lambda.decision_lines("gateway-interceptor").len();
        let output = lambda.call(&agentcore::request_event(&body, Some(&headers))).await;
        if let Some(problem) = agentcore::output_problem(&output) {
            panic!("{}: not an interceptor output ({problem}): {output}", case.name);
        }
        let lines = lambda.decision_lines("gateway-interceptor");
        assert_eq!(lines.len(), before + 1, "one decision line per call: {}", lambda.log());
        let line = &lines[before];
        let allowed = output["mcp"].get("transformedGatewayRequest").is_some();
        assert_eq!(allowed, line["effect"] == "allow", "{}: {output} vs {line}", case.name);
        let seen = seen(line);
        if case.of_grant() {
            // the RESPONSE point's tools/list keeps the tool exactly when the call's first
            // stages (lifecycle, grant, access) let it through
            let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
            let answer = agentcore::tools_list_answer(json!(2), &[name.as_str()], None);
            let before = lambda.decision_lines("gateway-interceptor").len();
            let output =
                lambda.call(&agentcore::response_event(&list, Some(&headers), &answer)).await;
            let tools = &output["mcp"]["transformedGatewayResponse"]["body"]["result"]["tools"];
            let kept = tools.as_array().is_some_and(|t| t.len() == 1);
            assert_eq!(
                kept,
                listed(&seen),
                "{}: the list and the call differ: {output}",
                case.name
            );
            let lines = lambda.decision_lines("gateway-interceptor");
            assert_eq!(lines.len(), before + 1, "{}: one line per list", case.name);
        }
        seen
    }

    /// `case` as agentgateway sends a `tools/call` of the backend named by the tool's id
    /// (decision 93): what the decision line says, checked against the code answered.
    async fn ext_mcp(&self, case: &Case, tool: &ToolDefinition, user: &str, session: &str) -> Seen {
        let grpc = if case.store == Db::Down { &self.ext_mcp_down } else { &self.ext_mcp };
        let metadata = principal(case, user, session).map(|token| prost_types::Struct {
            fields: [(
                "token".to_owned(),
                prost_types::Value { kind: Some(prost_types::value::Kind::StringValue(token)) },
            )]
            .into(),
        });
        let request = McpRequest {
            service_names: vec![tool.tool_id.clone()],
            method: "tools/call".into(),
            metadata_context: metadata,
            mcp_request: Some(
                json!({"name": case.function, "arguments": case.args}).to_string().into_bytes(),
            ),
            headers: vec![McpHeader { key: "mcp-session-id".into(), value: session.into() }],
        };
        let before = grpc.records.lock().unwrap().len();
        let answer = grpc.client.clone().check_request(request).await.unwrap().into_inner();
        let records = grpc.records.lock().unwrap().clone();
        assert_eq!(records.len(), before + 1, "{}: one decision line per call", case.name);
        let line = serde_json::to_value(&records[before]).unwrap();
        assert_eq!(line["point"], "ext-mcp");
        let seen = seen(&line);
        // the code the gateway is told says the same
        let told = match answer.result.unwrap() {
            mcp_request_result::Result::Pass(_) => None,
            mcp_request_result::Result::Error(e) => {
                let data: Option<Value> =
                    e.mcp_error.as_deref().map(|b| serde_json::from_slice(b).unwrap());
                let rule = data.and_then(|d| d["ruleId"].as_str().map(str::to_owned));
                Some((e.code(), rule))
            }
            other => panic!("{}: ExtMCP answered {other:?}", case.name),
        };
        let want = match &seen {
            Seen::Decided { effect, .. } if effect == "allow" => None,
            Seen::Decided { stage, .. } if stage == "limit" => {
                Some((Code::ResourceExhausted, None))
            }
            Seen::Decided { rule, .. } => Some((Code::PermissionDenied, rule.clone())),
            Seen::Refused(Before::Arguments) => Some((Code::Invalid, None)),
            Seen::Refused(_) | Seen::Granted => Some((Code::PermissionDenied, None)),
        };
        assert_eq!(
            told, want,
            "{}: the code answered and the decision line differ: {line}",
            case.name
        );
        if case.of_grant() {
            // the tools/list answer keeps the tool exactly when the call's first stages do
            let response = McpResponse {
                service_names: vec![tool.tool_id.clone()],
                method: "tools/list".into(),
                metadata_context: principal(case, user, session).map(|token| prost_types::Struct {
                    fields: [(
                        "token".to_owned(),
                        prost_types::Value {
                            kind: Some(prost_types::value::Kind::StringValue(token)),
                        },
                    )]
                    .into(),
                }),
                mcp_response: json!({"tools": [{"name": case.function}]}).to_string().into_bytes(),
            };
            let before = grpc.records.lock().unwrap().len();
            let answer = grpc.client.clone().check_response(response).await.unwrap().into_inner();
            let kept = match answer.result.unwrap() {
                mcp_response_result::Result::Mutated(bytes) => {
                    let result: Value = serde_json::from_slice(&bytes).unwrap();
                    result["tools"].as_array().is_some_and(|t| t.len() == 1)
                }
                other => panic!("{}: ExtMCP answered the list {other:?}", case.name),
            };
            assert_eq!(kept, listed(&seen), "{}: the list and the call differ", case.name);
            let records = grpc.records.lock().unwrap().len();
            assert_eq!(records, before + 1, "{}: one line per list", case.name);
        }
        seen
    }

    async fn authorize(
        &self,
        case: &Case,
        tool: &ToolDefinition,
        user: &str,
        session: &str,
    ) -> Seen {
        let api = if case.store == Db::Down { &self.api_down } else { &self.api };
        let mut body = json!({
            "context": context(case.who, user),
            "call": {"function": case.function, "arguments": case.args},
            "agentId": case.agent,
        });
        if case.session {
            body["sessionId"] = json!(session);
        }
        let url = format!("{}/tools/{}/authorize", api.base, tool.tool_id);
        let response = reqwest::Client::new()
            .post(url)
            .bearer_auth(&self.reader)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let answer: Value = response.json().await.unwrap_or(Value::Null);
        let text = |key: &str| answer[key].as_str().map(str::to_owned);
        match status {
            200 => Seen::Decided {
                effect: text("effect").unwrap(),
                outcome: text("outcome").unwrap(),
                stage: text("stage").unwrap(),
                rule: text("ruleId"),
            },
            400 if answer["errors"][0]["path"].as_str().is_some_and(|p| p.starts_with("/call")) => {
                Seen::Refused(Before::Arguments)
            }
            503 => Seen::Refused(Before::Unavailable),
            other => panic!("authorize answered {other}: {answer}"),
        }
    }

    async fn guard(
        &self,
        point: Point,
        case: &Case,
        tool: &ToolDefinition,
        user: &str,
        session: &str,
    ) -> Seen {
        let lambdas = match (point, case.store) {
            (Point::Remote, Db::Down) => &self.remote_down,
            (Point::Remote, Db::Up) => &self.remotes,
            (_, Db::Down) => &self.guard_down,
            (_, Db::Up) => &self.guards,
        };
        let lambda = &lambdas.iter().find(|(id, _)| *id == tool.tool_id).unwrap().1;
        let before = lambda.guard_lines().len();
        lambda.call(&event(case, tool, user, session)).await;
        let lines = lambda.guard_lines();
        assert_eq!(lines.len(), before + 1, "one decision line per call: {}", lambda.log());
        seen(&lines[before])
    }

    fn resolve(&self, case: &Case, tool: &ToolDefinition, user: &str) -> Seen {
        if case.of_grant() {
            return resolve_grant(case, tool, user);
        }
        let mut defs = DefinitionMap::default();
        defs.insert_tool(tool.clone());
        let mut agent = agent("table-resolved", None);
        agent.tool_ids = vec![tool.tool_id.clone()];
        defs.insert_agent(agent);
        let context: RequestContext = serde_json::from_value(context(case.who, user)).unwrap();
        let resolution = resolve(&defs, &BoundedCache::default(), "table-resolved", &context)
            .unwrap_or_else(|e| panic!("{}: the agent does not resolve: {e}", case.name));
        let entry = &resolution.trace.tools[0];
        let access = entry.access.as_ref();
        let rule = access.and_then(|d| d.rule_id.as_deref().map(str::to_owned));
        match entry.outcome {
            ToolOutcome::Included => Seen::Granted,
            ToolOutcome::Disabled | ToolOutcome::Retired => deny("lifecycle", None),
            ToolOutcome::Denied => Seen::Decided {
                effect: "deny".into(),
                outcome: access.map(|d| d.outcome().as_str().to_owned()).unwrap(),
                stage: "access".into(),
                rule,
            },
            other => panic!("{}: the resolver left the tool out as {other:?}", case.name),
        }
    }
}

/// What resolving the case's own agent over the live definitions gives for the tool:
/// not granted when the agent is not resolved or does not reach the release, else the
/// tool's own outcome.
fn resolve_grant(case: &Case, tool: &ToolDefinition, user: &str) -> Seen {
    let context: RequestContext = serde_json::from_value(context(case.who, user)).unwrap();
    let defs = live_definitions();
    let Ok(resolution) = resolve(&defs, &BoundedCache::default(), case.agent, &context) else {
        return not_granted();
    };
    let mut traces = vec![&resolution.trace];
    traces.extend(
        resolution.trace.collaborators.iter().filter(|c| c.outcome == AgentOutcome::Resolved),
    );
    let entry = traces.iter().flat_map(|t| &t.tools).find(|t| t.tool_id == tool.tool_id);
    let Some(entry) = entry else { return not_granted() };
    let rule = entry.access.as_ref().and_then(|d| d.rule_id.as_deref().map(str::to_owned));
    match entry.outcome {
        ToolOutcome::Included => Seen::Granted,
        ToolOutcome::Disabled | ToolOutcome::Retired => deny("lifecycle", None),
        ToolOutcome::Denied => Seen::Decided {
            effect: "deny".into(),
            outcome: "deny".into(),
            stage: "access".into(),
            rule,
        },
        _ => not_granted(),
    }
}

/// What a decision line of the guard or a gateway point says was decided.
fn seen(line: &Value) -> Seen {
    let text = |key: &str| line[key].as_str().map(str::to_owned);
    match line["reason"].as_str().unwrap() {
        "NO_SIGNED_CONTEXT"
        | "NO_PRINCIPAL"
        | "INVALID_SIGNED_CONTEXT"
        | "EXPIRED_SIGNED_CONTEXT"
        | "SESSION_MISMATCH" => Seen::Refused(Before::Principal),
        // at a gateway the function is the MCP tool: one the registry tool lacks is an
        // unknown tool, refused before deciding as `authorize` refuses the function
        "INVALID_ARGUMENTS" | "UNKNOWN_TOOL" => Seen::Refused(Before::Arguments),
        "RULES_UNAVAILABLE" | "RULES_STALE" | "BUDGETS_UNAVAILABLE" | "REGISTRY_UNAVAILABLE" => {
            Seen::Refused(Before::Unavailable)
        }
        _ => Seen::Decided {
            effect: text("effect").unwrap(),
            outcome: text("outcome").unwrap(),
            // a line without a stage diverges from every expectation
            stage: text("stage").unwrap_or_else(|| "(none)".into()),
            rule: text("ruleId"),
        },
    }
}

async fn guard_lambda(table: &Table, env: &[(&str, &str)], endpoint: Option<&str>) -> Lambda {
    let mut env = env.to_vec();
    env.push((names::TABLE, table.name.as_str()));
    if let Some(endpoint) = endpoint {
        env.push((names::DYNAMODB_ENDPOINT_URL, endpoint));
    }
    Lambda::start("example-tool", table, &env).await
}

/// The session attribute resolution adds for `case` in `session` (or what stands in
/// for it).
fn principal(case: &Case, user: &str, session: &str) -> Option<String> {
    let context = context(case.who, user);
    let sign = |keys, expires_at| tokens::issue(keys, case.agent, &context, session, expires_at);
    match case.who {
        Who::Missing => None,
        Who::Expired => Some(sign(ring(), now_s() - 1)),
        Who::Forged => Some(sign(other_ring(), now_s() + 3_600)),
        Who::OtherSession => {
            Some(tokens::issue(ring(), case.agent, &context, "another-session", now_s() + 3_600))
        }
        _ => Some(sign(ring(), now_s() + 3_600)),
    }
}

/// `case`'s arguments as Bedrock's parameters: each value as text, with its type.
fn parameters(case: &Case) -> Vec<Parameter> {
    let arguments = case.args.as_object().unwrap();
    arguments
        .iter()
        .map(|(name, value)| {
            let kind = match value {
                Value::Number(n) if n.is_i64() && name == "precision" => "integer",
                Value::Number(_) => "number",
                _ => "string",
            };
            let value = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Parameter { name: name.clone(), kind: kind.into(), value }
        })
        .collect()
}

/// `case`'s call as a runtime gets it back from Bedrock (return of control).
fn control_call(case: &Case) -> ControlCall {
    ControlCall {
        action_group: "table".into(),
        operation: Operation::Function(case.function.into()),
        agent_id: None,
        collaborator_name: None,
        parameters: parameters(case),
    }
}

/// `case`'s call as Bedrock sends it to the tool's Lambda.
fn event(case: &Case, tool: &ToolDefinition, user: &str, session: &str) -> Value {
    let parameters: Vec<Value> = parameters(case)
        .into_iter()
        .map(|p| json!({"name": p.name, "type": p.kind, "value": p.value}))
        .collect();
    let mut attributes = json!({});
    if let Some(p) = principal(case, user, session) {
        attributes[SESSION_ATTRIBUTE] = json!(p);
    }
    json!({
        "messageVersion": "1.0",
        "agent": {"name": "table", "id": "AGENT12345", "alias": "TSTALIASID", "version": "DRAFT"},
        "inputText": "convert", "sessionId": session,
        "actionGroup": tool.name, "function": case.function,
        "parameters": parameters,
        "sessionAttributes": attributes, "promptSessionAttributes": {}
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn every_enforcement_point_decides_every_case_alike() {
    let dir = tempfile::tempdir().unwrap();
    let world = World::new(dir.path()).await;
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    assert!(cases.iter().filter(|c| c.of_grant()).count() >= 15, "the grant's cases");
    let mut report = Vec::new();
    let mut diverged = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        for point in POINTS {
            // each case and point has its own principal and session: nothing carries over
            let user = format!("u-{n}-{point:?}");
            let session = format!("s-{n}-{point:?}");
            if let Some(why) = cannot(point, case) {
                report.push(format!("{:<60} {point:?}: cannot express: {why}", case.name));
                continue;
            }
            let seen = world.run(point, case, &user, &session).await;
            let want = expected(point, case);
            let line = format!("{:<60} {point:?}: {seen:?}", case.name);
            if seen != want {
                diverged.push(format!("{line}, expected {want:?}"));
            }
            report.push(line);
        }
    }
    println!("{}", report.join("\n"));
    assert!(diverged.is_empty(), "the points diverge:\n{}", diverged.join("\n"));
    let _ = (&world.table, &world.store);
}
