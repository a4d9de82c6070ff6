//! The registry's decisions against the engines a platform team would pick instead, on
//! equivalent policies (`cases.json`, explained in docs/performance.md):
//!
//! - [`Registry`]: the registry's own path (`RuleSet` on a `PreparedContext`, and
//!   `resolve` for an agent; [`RegistryRules`]: a resolution's rule decisions alone);
//! - [`PlainCel`]: the unmodified `cel` crate used as its documentation shows, the
//!   request JSON converted into `cel` values per request;
//! - [`Cedar`]: `cedar-policy`, the request as a Cedar `context`;
//! - [`Rego`]: `regorus` compiled to its virtual machine (RVM), the request as `input`.
//!
//! Every engine decides a [`Case`] through [`Peer`]: from a request already prepared in
//! its own form ([`Peer::prepare`], then [`Peer::decide`]) and from the request's JSON
//! text ([`Peer::decide_json`]). A decision is a bit set: bit `i` is set when tool `i`
//! is allowed (a single decision is bit 0). `benches/peers.rs` times both paths;
//! `tests/equivalence.rs` checks that every engine decides every request alike.

use std::str::FromStr;
use std::sync::Arc;

use registry_access::{AccessRule, ArgType, CallSchema, PreparedContext, RequestContext, RuleSet};
use registry_core::resolve::{BoundedCache, DefinitionMap, ToolOutcome, resolve, resolve_prepared};
use serde::Deserialize;
use serde_json::{Map, Value, json};

const ACCESS_CASES: &str = include_str!("../../access/benches/access-cases.json");
const PEER_CASES: &str = include_str!("../cases.json");
/// The agent resolved in the `resolution` case.
const AGENT: &str = "peer-agent";

/// A decision: bit `i` set when tool `i` (or the one decision, bit 0) is allowed.
pub type Decision = u64;

/// What a case decides.
#[derive(Debug, Clone)]
pub enum Kind {
    /// One access condition: allow when it holds.
    Access {
        /// The CEL condition.
        condition: String,
    },
    /// A tool's call rules, first match, default deny; the request is an authorize body
    /// (`{context, call: {function, arguments}}`).
    Call {
        /// The rules, in order.
        rules: Vec<AccessRule>,
    },
    /// An agent's resolution: `tools` tools with the same rules each (first match,
    /// default deny); the request is the context.
    Resolution {
        /// How many tools.
        tools: usize,
        /// Each tool's rules, in order.
        rules: Vec<AccessRule>,
    },
}

/// One case: its rules for each engine and the requests it is decided on.
#[derive(Debug, Clone)]
pub struct Case {
    /// The case's name (the criterion group is `peers/<name>`).
    pub name: String,
    /// The CEL rules (the registry's and the plain `cel` crate's).
    pub kind: Kind,
    /// The Cedar policy set.
    pub cedar: String,
    /// The Rego rules (the body of `package peer`).
    pub rego: String,
    /// The benchmarked request's JSON text (allowed).
    pub request: String,
    /// Requests for the equivalence test, with the decision each must get (the
    /// benchmarked request first).
    pub variants: Vec<Variant>,
}

/// A request of the equivalence test.
#[derive(Debug, Clone)]
pub struct Variant {
    /// What it is.
    pub note: String,
    /// Its JSON text.
    pub request: String,
    /// The decision every engine must give.
    pub expected: Decision,
}

impl Kind {
    /// How many decisions a request gets: one per tool of a resolution, else one.
    pub fn decisions(&self) -> usize {
        match self {
            Kind::Resolution { tools, .. } => *tools,
            _ => 1,
        }
    }

    /// Every decision allowed.
    pub fn all_allowed(&self) -> Decision {
        (1u64 << self.decisions()) - 1
    }
}

impl Case {
    /// Every decision of this case allowed.
    pub fn all_allowed(&self) -> Decision {
        self.kind.all_allowed()
    }
}

#[derive(Deserialize)]
struct AccessFile {
    context: Value,
    cases: Vec<AccessCase>,
}

#[derive(Deserialize)]
struct AccessCase {
    name: String,
    condition: String,
}

#[derive(Deserialize)]
struct PeerFile {
    access: AccessPeers,
    refund: RuleCase,
    resolution: RuleCase,
}

#[derive(Deserialize)]
struct AccessPeers {
    cases: std::collections::BTreeMap<String, Translations>,
    variants: Vec<AccessVariant>,
}

#[derive(Deserialize)]
struct Translations {
    cedar: Text,
    rego: Text,
}

/// A policy's text, as one string or as lines.
#[derive(Deserialize)]
#[serde(untagged)]
enum Text {
    One(String),
    Lines(Vec<String>),
}

impl Text {
    fn join(self) -> String {
        match self {
            Text::One(s) => s,
            Text::Lines(lines) => lines.join("\n"),
        }
    }
}

#[derive(Deserialize)]
struct AccessVariant {
    note: String,
    allow: Vec<String>,
    context: Value,
}

#[derive(Deserialize)]
struct RuleCase {
    #[serde(default)]
    tools: Option<usize>,
    rules: Vec<AccessRule>,
    cedar: Text,
    rego: Text,
    request: Value,
    variants: Vec<RuleVariant>,
}

#[derive(Deserialize)]
struct RuleVariant {
    note: String,
    allow: bool,
    request: Value,
}

/// The seven cases: the five access cases of `access-cases.json`, `refund` and
/// `resolution`.
pub fn cases() -> Result<Vec<Case>, String> {
    let access: AccessFile = serde_json::from_str(ACCESS_CASES).map_err(|e| e.to_string())?;
    let peers: PeerFile = serde_json::from_str(PEER_CASES).map_err(|e| e.to_string())?;
    let mut translations = peers.access.cases;
    let context = access.context.to_string();
    let mut cases = Vec::new();
    for c in access.cases {
        let t = translations
            .remove(&c.name)
            .ok_or_else(|| format!("cases.json: no Cedar and Rego rules for `{}`", c.name))?;
        let mut variants = vec![Variant {
            note: "the benchmarked context".into(),
            request: context.clone(),
            expected: 1,
        }];
        variants.extend(peers.access.variants.iter().map(|v| Variant {
            note: v.note.clone(),
            request: v.context.to_string(),
            expected: Decision::from(v.allow.contains(&c.name)),
        }));
        cases.push(Case {
            name: c.name,
            kind: Kind::Access { condition: c.condition },
            cedar: t.cedar.join(),
            rego: t.rego.join(),
            request: context.clone(),
            variants,
        });
    }
    if let Some(name) = translations.keys().next() {
        return Err(format!("cases.json: `{name}` is not a case of access-cases.json"));
    }
    for (name, case) in [("refund", peers.refund), ("resolution", peers.resolution)] {
        let kind = match case.tools {
            Some(tools) if (1..64).contains(&tools) => {
                Kind::Resolution { tools, rules: case.rules }
            }
            Some(tools) => return Err(format!("cases.json: {tools} tools (1 to 63)")),
            None => Kind::Call { rules: case.rules },
        };
        let all = kind.all_allowed();
        let request = case.request.to_string();
        let mut variants = vec![Variant {
            note: "the benchmarked request".into(),
            request: request.clone(),
            expected: all,
        }];
        variants.extend(case.variants.into_iter().map(|v| Variant {
            note: v.note,
            request: v.request.to_string(),
            expected: if v.allow { all } else { 0 },
        }));
        cases.push(Case {
            name: name.into(),
            kind,
            cedar: case.cedar.join(),
            rego: case.rego.join(),
            request,
            variants,
        });
    }
    Ok(cases)
}

/// An engine set up for one case.
pub trait Peer: Sized {
    /// A request in the engine's own form, ready to decide.
    type Request;
    /// The engine's name in the bench (`registry`, `cel`, `cedar`, `rego`).
    const NAME: &'static str;
    /// Compiles the case's rules.
    fn new(case: &Case) -> Result<Self, String>;
    /// Reads a request's JSON text into the engine's form (not timed by `prepared`).
    fn prepare(&self, json: &str) -> Result<Self::Request, String>;
    /// Decides a prepared request.
    fn decide(&mut self, request: &Self::Request) -> Decision;
    /// Decides from the request's JSON text: what a server does per request.
    fn decide_json(&mut self, json: &str) -> Result<Decision, String> {
        let request = self.prepare(json)?;
        Ok(self.decide(&request))
    }
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The schema of the refund tool's one function.
fn refund_schema() -> CallSchema {
    let mut schema = CallSchema::new();
    schema.function(
        "refund",
        [
            ("amount".to_string(), ArgType::Number),
            ("currency".to_string(), ArgType::String),
            ("customerId".to_string(), ArgType::String),
        ],
    );
    schema
}

/// The resolution case's definitions: the agent (no rules) and its tools.
fn definitions(tools: usize, rules: &[AccessRule]) -> Result<DefinitionMap, String> {
    let mut defs = DefinitionMap::default();
    let ids: Vec<String> = (0..tools).map(|i| format!("tool-{i}")).collect();
    for id in &ids {
        defs.insert_tool(
            serde_json::from_value(json!({
                "toolId": id,
                "version": 1,
                "executionType": "lambda",
                "name": id.replace('-', "_"),
                "displayName": id,
                "description": "Looks things up.",
                "supportedAgentFrameworks": ["bedrock"],
                "lambdaArn": "arn:aws:lambda:us-west-2:123456789012:function:tool",
                "accessRules": rules,
                "functionSchema": [{
                    "name": "lookup",
                    "description": "Look up a city.",
                    "parameters": {"city": {"description": "City", "type": "string", "required": true}}
                }]
            }))
            .map_err(err)?,
        );
    }
    defs.insert_agent(
        serde_json::from_value(json!({
            "agentId": AGENT,
            "version": 1,
            "basePrompt": "You help.",
            "foundationModel": "anthropic.claude-3-haiku-20240307-v1:0",
            "toolIds": ids,
        }))
        .map_err(err)?,
    );
    Ok(defs)
}

/// The registry: `RuleSet` on a `PreparedContext`; `resolve` for an agent.
pub struct Registry {
    policy: RegistryPolicy,
}

enum RegistryPolicy {
    Access(RuleSet),
    Call(RuleSet),
    Resolution(DefinitionMap, BoundedCache),
}

/// A request prepared for the registry.
pub enum RegistryRequest {
    /// A prepared context (access cases).
    Context(PreparedContext<'static>),
    /// A prepared context and the call (call rules).
    Call(PreparedContext<'static>, String, Map<String, Value>),
    /// The typed context (`resolve` prepares it: what the route does after parsing).
    Typed(RequestContext),
}

/// The body of `POST /tools/{id}/authorize`, as far as the rules read it.
#[derive(Deserialize)]
struct AuthorizeBody {
    #[serde(default)]
    context: RequestContext,
    call: CallBody,
}

#[derive(Deserialize)]
struct CallBody {
    function: String,
    arguments: Map<String, Value>,
}

fn call_decision(
    set: &RuleSet,
    prepared: &PreparedContext<'_>,
    function: &str,
    args: &Map<String, Value>,
) -> Decision {
    let call = registry_access::ToolCall { function, http_method: None, arguments: args };
    Decision::from(set.evaluate_call(prepared, &call).is_allowed())
}

fn granted(
    resolution: Result<registry_core::resolve::Resolution, registry_core::resolve::ResolveError>,
) -> Decision {
    let Ok(resolution) = resolution else { return 0 };
    resolution
        .trace
        .tools
        .iter()
        .enumerate()
        .filter(|(_, tool)| tool.outcome == ToolOutcome::Included)
        .fold(0, |bits, (i, _)| bits | (1 << i))
}

impl Peer for Registry {
    type Request = RegistryRequest;
    const NAME: &'static str = "registry";

    fn new(case: &Case) -> Result<Self, String> {
        let policy = match &case.kind {
            Kind::Access { condition } => RegistryPolicy::Access(
                RuleSet::compile(&[AccessRule::new(
                    registry_access::Effect::Allow,
                    Some(condition),
                )])
                .map_err(|e| format!("{e:?}"))?,
            ),
            Kind::Call { rules } => RegistryPolicy::Call(
                RuleSet::compile_call(rules, Arc::new(refund_schema()))
                    .map_err(|e| format!("{e:?}"))?,
            ),
            Kind::Resolution { tools, rules } => {
                RegistryPolicy::Resolution(definitions(*tools, rules)?, BoundedCache::default())
            }
        };
        Ok(Self { policy })
    }

    fn prepare(&self, json: &str) -> Result<RegistryRequest, String> {
        Ok(match &self.policy {
            RegistryPolicy::Access(_) => RegistryRequest::Context(
                PreparedContext::from_json(json.as_bytes())
                    .map_err(|e| format!("{e:?}"))?
                    .into_owned(),
            ),
            RegistryPolicy::Call(_) => {
                let body: AuthorizeBody = serde_json::from_str(json).map_err(err)?;
                let prepared = PreparedContext::new(&body.context).map_err(|e| format!("{e:?}"))?;
                RegistryRequest::Call(
                    prepared.into_owned(),
                    body.call.function,
                    body.call.arguments,
                )
            }
            RegistryPolicy::Resolution(..) => {
                RegistryRequest::Typed(serde_json::from_str(json).map_err(err)?)
            }
        })
    }

    fn decide(&mut self, request: &RegistryRequest) -> Decision {
        match (&self.policy, request) {
            (RegistryPolicy::Access(set), RegistryRequest::Context(prepared)) => {
                Decision::from(set.evaluate(prepared).is_allowed())
            }
            (RegistryPolicy::Call(set), RegistryRequest::Call(prepared, function, args)) => {
                call_decision(set, prepared, function, args)
            }
            (RegistryPolicy::Resolution(defs, cache), RegistryRequest::Typed(context)) => {
                granted(resolve(defs, cache, AGENT, context))
            }
            _ => 0,
        }
    }

    /// What the routes do: the context read straight from the text
    /// (`PreparedContext::from_json`) for a decision or a resolution; the authorize
    /// body parsed into its typed form for a call.
    fn decide_json(&mut self, json: &str) -> Result<Decision, String> {
        Ok(match &self.policy {
            RegistryPolicy::Access(set) => {
                let prepared =
                    PreparedContext::from_json(json.as_bytes()).map_err(|e| format!("{e:?}"))?;
                Decision::from(set.evaluate(&prepared).is_allowed())
            }
            RegistryPolicy::Call(set) => {
                let body: AuthorizeBody = serde_json::from_str(json).map_err(err)?;
                let prepared = PreparedContext::new(&body.context).map_err(|e| format!("{e:?}"))?;
                call_decision(set, &prepared, &body.call.function, &body.call.arguments)
            }
            RegistryPolicy::Resolution(defs, cache) => {
                let prepared =
                    PreparedContext::from_json(json.as_bytes()).map_err(|e| format!("{e:?}"))?;
                granted(resolve_prepared(defs, cache, AGENT, prepared))
            }
        })
    }
}

/// The registry's decisions alone in a resolution, as the peers decide it: each tool's
/// `RuleSet` on one prepared context, without the rest of `resolve` (the agent's
/// definitions read, the inline agent built). Only for the `resolution` case.
pub struct RegistryRules {
    sets: Vec<RuleSet>,
}

impl Peer for RegistryRules {
    type Request = PreparedContext<'static>;
    const NAME: &'static str = "registry-rules";

    fn new(case: &Case) -> Result<Self, String> {
        let Kind::Resolution { tools, rules } = &case.kind else {
            return Err(format!("{}: not a resolution", case.name));
        };
        let sets = (0..*tools)
            .map(|_| RuleSet::compile(rules).map_err(|e| format!("{e:?}")))
            .collect::<Result<_, _>>()?;
        Ok(Self { sets })
    }

    fn prepare(&self, json: &str) -> Result<Self::Request, String> {
        Ok(PreparedContext::from_json(json.as_bytes()).map_err(|e| format!("{e:?}"))?.into_owned())
    }

    fn decide(&mut self, prepared: &Self::Request) -> Decision {
        self.sets.iter().enumerate().fold(0, |bits, (i, set)| {
            bits | (Decision::from(set.evaluate(prepared).is_allowed()) << i)
        })
    }
}

/// The plain `cel` crate: one `Program` per rule, first match, an error denies. Per
/// request the JSON is parsed and each top-level variable converted (`cel::to_value`)
/// into a scope over a root `Context` built once (`Context::default()` builds the
/// standard library's environment, about 25 us, so a server keeps one).
pub struct PlainCel {
    /// Per tool (one for a single decision), its rules: (allows?, program).
    tools: Vec<Vec<(bool, cel::Program)>>,
    /// The request is an authorize body: variables from `context`, plus `call`.
    call: bool,
    /// The root context: the standard library, no variables.
    root: cel::Context<'static, 'static>,
}

fn cel_rules(rules: &[AccessRule]) -> Result<Vec<(bool, cel::Program)>, String> {
    rules
        .iter()
        .map(|r| {
            let condition = r.condition.as_deref().unwrap_or("true");
            Ok((
                r.effect == registry_access::Effect::Allow,
                cel::Program::compile(condition).map_err(err)?,
            ))
        })
        .collect()
}

impl PlainCel {
    /// Binds the request's variables in `context`.
    fn bind(&self, context: &mut cel::Context<'_, '_>, json: &str) -> Result<(), String> {
        let request: Value = serde_json::from_str(json).map_err(err)?;
        let (variables, call) = if self.call {
            (&request["context"], Some(&request["call"]))
        } else {
            (&request, None)
        };
        let entries = variables.as_object().into_iter().flatten().map(|(k, v)| (k.as_str(), v));
        for (name, value) in entries.chain(call.map(|c| ("call", c))) {
            context
                .add_variable(name.to_string(), cel::to_value(value).map_err(err)?)
                .map_err(err)?;
        }
        Ok(())
    }

    fn decide_in(&self, context: &cel::Context<'_, '_>) -> Decision {
        self.tools.iter().enumerate().fold(0, |bits, (i, rules)| {
            let allowed = rules
                .iter()
                .find_map(|(allows, program)| match program.execute(context) {
                    Ok(cel::Value::Bool(true)) => Some(*allows),
                    Ok(cel::Value::Bool(false)) => None,
                    _ => Some(false),
                })
                .unwrap_or(false);
            bits | (Decision::from(allowed) << i)
        })
    }
}

impl Peer for PlainCel {
    type Request = cel::Context<'static, 'static>;
    const NAME: &'static str = "cel";

    fn new(case: &Case) -> Result<Self, String> {
        let (tools, call) = match &case.kind {
            Kind::Access { condition } => {
                (vec![vec![(true, cel::Program::compile(condition).map_err(err)?)]], false)
            }
            Kind::Call { rules } => (vec![cel_rules(rules)?], true),
            Kind::Resolution { tools, rules } => {
                ((0..*tools).map(|_| cel_rules(rules)).collect::<Result<_, _>>()?, false)
            }
        };
        Ok(Self { tools, call, root: cel::Context::default() })
    }

    fn prepare(&self, json: &str) -> Result<Self::Request, String> {
        let mut context = cel::Context::default();
        self.bind(&mut context, json)?;
        Ok(context)
    }

    fn decide(&mut self, context: &Self::Request) -> Decision {
        self.decide_in(context)
    }

    fn decide_json(&mut self, json: &str) -> Result<Decision, String> {
        let mut context = self.root.new_inner_scope();
        self.bind(&mut context, json)?;
        Ok(self.decide_in(&context))
    }
}

/// Cedar: one policy set per tool (one for a single decision), the request's JSON as
/// the `context` of a request by `User::"u"` to `Action::"decide"` on `Tool::"<i>"`,
/// no entities.
pub struct Cedar {
    sets: Vec<cedar_policy::PolicySet>,
    authorizer: cedar_policy::Authorizer,
    entities: cedar_policy::Entities,
    principal: cedar_policy::EntityUid,
    action: cedar_policy::EntityUid,
    resources: Vec<cedar_policy::EntityUid>,
}

impl Cedar {
    fn requests(
        &self,
        context: cedar_policy::Context,
    ) -> Result<Vec<cedar_policy::Request>, String> {
        self.resources
            .iter()
            .map(|resource| {
                cedar_policy::Request::new(
                    self.principal.clone(),
                    self.action.clone(),
                    resource.clone(),
                    context.clone(),
                    None,
                )
                .map_err(err)
            })
            .collect()
    }

    fn allowed(&self, i: usize, request: &cedar_policy::Request) -> Decision {
        let response = self.authorizer.is_authorized(request, &self.sets[i], &self.entities);
        Decision::from(response.decision() == cedar_policy::Decision::Allow) << i
    }
}

impl Peer for Cedar {
    type Request = Vec<cedar_policy::Request>;
    const NAME: &'static str = "cedar";

    fn new(case: &Case) -> Result<Self, String> {
        let tools = case.kind.decisions();
        let uid = |s: &str| cedar_policy::EntityUid::from_str(s).map_err(err);
        Ok(Self {
            sets: (0..tools)
                .map(|_| cedar_policy::PolicySet::from_str(&case.cedar).map_err(err))
                .collect::<Result<_, _>>()?,
            authorizer: cedar_policy::Authorizer::new(),
            entities: cedar_policy::Entities::empty(),
            principal: uid(r#"User::"u""#)?,
            action: uid(r#"Action::"decide""#)?,
            resources: (0..tools)
                .map(|i| uid(&format!(r#"Tool::"{i}""#)))
                .collect::<Result<_, _>>()?,
        })
    }

    fn prepare(&self, json: &str) -> Result<Self::Request, String> {
        self.requests(cedar_policy::Context::from_json_str(json, None).map_err(err)?)
    }

    fn decide(&mut self, requests: &Self::Request) -> Decision {
        requests.iter().enumerate().fold(0, |bits, (i, request)| bits | self.allowed(i, request))
    }

    /// The context parsed once; one request per tool, each evaluated as it is built.
    fn decide_json(&mut self, json: &str) -> Result<Decision, String> {
        let context = cedar_policy::Context::from_json_str(json, None).map_err(err)?;
        let mut bits = 0;
        for (i, resource) in self.resources.iter().enumerate() {
            let request = cedar_policy::Request::new(
                self.principal.clone(),
                self.action.clone(),
                resource.clone(),
                context.clone(),
                None,
            )
            .map_err(err)?;
            bits |= self.allowed(i, &request);
        }
        Ok(bits)
    }
}

/// Rego through `regorus`, compiled to its virtual machine: one VM per tool (one for a
/// single decision) running `data.peer.allow`, the request's JSON as `input`.
pub struct Rego {
    vms: Vec<regorus::rvm::vm::RegoVM>,
}

/// The module of a case's Rego rules.
pub fn rego_module(rules: &str) -> String {
    format!("package peer\nimport rego.v1\n\ndefault allow := false\n\n{rules}\n")
}

impl Peer for Rego {
    type Request = regorus::Value;
    const NAME: &'static str = "rego";

    fn new(case: &Case) -> Result<Self, String> {
        let tools = case.kind.decisions();
        let vms = (0..tools)
            .map(|_| {
                let mut engine = regorus::Engine::new();
                engine.add_policy("peer.rego".into(), rego_module(&case.rego)).map_err(err)?;
                let entry: regorus::Rc<str> = "data.peer.allow".into();
                let compiled = engine.compile_with_entrypoint(&entry).map_err(err)?;
                let program = regorus::languages::rego::compiler::Compiler::compile_from_policy(
                    &compiled,
                    &["data.peer.allow"],
                )
                .map_err(err)?;
                let mut vm = regorus::rvm::vm::RegoVM::new();
                vm.load_program(program);
                Ok(vm)
            })
            .collect::<Result<_, String>>()?;
        Ok(Self { vms })
    }

    fn prepare(&self, json: &str) -> Result<Self::Request, String> {
        regorus::Value::from_json_str(json).map_err(err)
    }

    fn decide(&mut self, input: &Self::Request) -> Decision {
        self.vms.iter_mut().enumerate().fold(0, |bits, (i, vm)| {
            vm.set_input(input.clone());
            let allowed = matches!(vm.execute(), Ok(regorus::Value::Bool(true)));
            bits | (Decision::from(allowed) << i)
        })
    }
}
