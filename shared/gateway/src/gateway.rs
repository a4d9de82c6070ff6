//! [`Gateway`]: a `tools/call` decided by `registry_policy::decide`, a `tools/list`
//! filtered by the first two stages of it, each with its decision line.

use std::sync::Arc;
use std::time::Instant;

use registry_access::{
    Decision, DecisionPoint, DecisionRecord, Effect, Listing, PreparedContext, ReasonCode, ToolCall,
};
use registry_config::ConfigError;
use registry_core::validate::{is_id, is_tag_value};
use registry_policy::{
    Clock, Loaded, Point, Refusal, Refused, RuleSource, Session, Stamp, SystemClock, decide_access,
};
use registry_types::{excerpt, quote};
use serde_json::{Map, Value};

use crate::config::GatewayConfig;
use crate::name::TARGET_TAG;
use crate::principal::{Caller, Known, identify};
use crate::verdict::Verdict;

/// One `tools/call` as a gateway sees it.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// Who calls.
    pub caller: Caller<'a>,
    /// The gateway target (AgentCore) or backend (agentgateway) serving the tool.
    pub target: &'a str,
    /// The MCP tool's name within its target: the registry tool's function.
    pub tool: &'a str,
    /// The call's arguments.
    pub arguments: &'a Map<String, Value>,
    /// The MCP session (`Mcp-Session-Id`), counted in when the principal carries no
    /// session of its own (callers known by claims).
    pub session_id: Option<&'a str>,
}

/// One tool of a `tools/list` result.
#[derive(Debug, Clone, Copy)]
pub struct Listed<'a> {
    /// Its target or backend.
    pub target: &'a str,
    /// Its name within the target.
    pub tool: &'a str,
}

/// Where decision lines go.
type DecisionLog = Box<dyn Fn(DecisionRecord) + Send + Sync>;

/// The decision point an MCP gateway calls.
pub struct Gateway<S> {
    setup: Result<(GatewayConfig, Point<S>), ConfigError>,
    point: DecisionPoint,
    clock: Arc<dyn Clock>,
    log: DecisionLog,
}

impl<S> std::fmt::Debug for Gateway<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway").field("point", &self.point).finish_non_exhaustive()
    }
}

/// Who and what a decision line is about, as far as the point got.
#[derive(Default)]
struct About {
    principal_id: Option<String>,
    agent_id: Option<String>,
    tool_id: Option<String>,
    tool_version: Option<u64>,
}

impl About {
    /// Writes it into `record`.
    fn onto(self, record: &mut DecisionRecord) {
        record.principal_id = self.principal_id;
        record.agent_id = self.agent_id;
        record.tool_id = self.tool_id;
        record.tool_version = self.tool_version;
    }
}

/// A tool a gateway names, found in the registry.
struct Found {
    loaded: Arc<Loaded>,
}

impl<S: RuleSource> Gateway<S> {
    /// A point for `point` (the gateway it serves) reading `source`, its decision
    /// records dropped until [`Gateway::with_log`] says where they go.
    pub fn new(config: GatewayConfig, source: S, point: DecisionPoint) -> Self {
        let rules = Point::new(source, config.max_staleness);
        Self {
            setup: Ok((config, rules)),
            ..Self::misconfigured(ConfigError { problems: Vec::new() }, point)
        }
    }

    /// A point that denies every call and lists no tool, because of `error` (named in
    /// each decision line).
    pub fn misconfigured(error: ConfigError, point: DecisionPoint) -> Self {
        Self { setup: Err(error), point, clock: Arc::new(SystemClock), log: Box::new(|_| {}) }
    }

    /// This point handing each decision record to `log`.
    #[must_use]
    pub fn with_log(mut self, log: impl Fn(DecisionRecord) + Send + Sync + 'static) -> Self {
        self.log = Box::new(log);
        self
    }

    /// This point reading the time from `clock`.
    #[must_use]
    pub fn with_clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Arc::new(clock);
        if let Ok((config, point)) = self.setup {
            self.setup = Ok((config, point.with_clock(Arc::clone(&self.clock))));
        }
        self
    }

    /// Why this point denies everything, when it does.
    pub fn problem(&self) -> Option<&ConfigError> {
        self.setup.as_ref().err()
    }

    /// Decides one `tools/call` and writes its decision line.
    pub async fn call(&self, call: Call<'_>) -> Verdict {
        let started = Instant::now();
        let now_ms = self.clock.now_ms();
        let mut about = About::default();
        let (verdict, mut record) = match self.decide_call(call, now_ms, &mut about).await {
            Ok(decided) => decided,
            Err(refused) => (Verdict::refused(&refused), self.refusal(Stamp::at(now_ms), refused)),
        };
        about.onto(&mut record);
        record.function = Some(named(call.tool));
        record.tool_id = record.tool_id.or_else(|| Some(named(call.target)));
        record.eval_micros = registry_access::record::micros_since(started);
        (self.log)(record);
        verdict
    }

    /// The verdict and decision line of `call`, or why it is refused before a rule
    /// decides: the caller identified, the tool found, its arguments checked, the
    /// agent's grant read, then [`Point::decide_call`].
    async fn decide_call(
        &self,
        call: Call<'_>,
        now_ms: i64,
        about: &mut About,
    ) -> Result<(Verdict, DecisionRecord), Refused> {
        let (config, point) = self.setup.as_ref().map_err(not_configured)?;
        let known = identify(config, point, call.caller, now_ms).await?;
        about.agent_id.clone_from(&known.agent_id);
        let mut context = prepared(&known)?;
        context.set_agent_id(known.agent_id.as_deref());
        about.principal_id = context.user_id().map(str::to_owned);
        let Found { loaded } = self.find(point, call.target, call.tool, now_ms).await?;
        about.tool_id = Some(loaded.tool().tool_id.clone());
        about.tool_version = loaded.tool().server.version;
        let arguments = Value::Object(call.arguments.clone());
        let errors = loaded.check_json(call.tool, &arguments);
        if !errors.is_empty() {
            let mut listed: Vec<String> = errors
                .iter()
                .take(MAX_ARGUMENT_ERRORS)
                .map(|e| {
                    if e.path.is_empty() {
                        excerpt(&e.message).into_owned()
                    } else {
                        format!("{}: {}", excerpt(&e.path), excerpt(&e.message))
                    }
                })
                .collect();
            if errors.len() > MAX_ARGUMENT_ERRORS {
                listed.push(format!("and {} more", errors.len() - MAX_ARGUMENT_ERRORS));
            }
            return Err(Refused {
                refusal: Refusal::InvalidArguments,
                message: format!("invalid arguments: {}", listed.join("; ")),
            });
        }
        let grant = match known.agent_id.as_deref() {
            Some(agent_id) => {
                Some(point.grant(agent_id, &context, &loaded.tool().tool_id, now_ms).await?)
            }
            None => None,
        };
        let session_id = known.session_id.as_deref().or(call.session_id);
        let session = Session { agent_id: known.agent_id.as_deref(), session_id };
        let tool_call =
            ToolCall { function: call.tool, http_method: None, arguments: call.arguments };
        let grant = grant.as_ref();
        let decided =
            point.decide_call(&loaded, &mut context, session, grant, tool_call, now_ms).await?;
        let mut record = decided.record(self.point, Stamp::at(now_ms));
        record.session_id = session_id
            .filter(|s| registry_core::session::session_id_problem(s).is_none())
            .map(str::to_owned);
        Ok((Verdict::of(&decided, loaded.tool()), record))
    }

    /// Whether each listed tool is granted to `caller`: the tool's lifecycle, the
    /// agent's grant and the tool's access rules, as `tools/call` decides them first.
    /// An unknown tool, no principal or no way to decide: not granted. One decision
    /// line for the whole list, with how many tools were kept and withheld (and why).
    pub async fn list(&self, caller: Caller<'_>, tools: &[Listed<'_>]) -> Vec<bool> {
        let started = Instant::now();
        let now_ms = self.clock.now_ms();
        let mut about = About::default();
        let mut listing = Listing::default();
        let granted = match self.keep(caller, tools, now_ms, &mut about).await {
            Ok(kept) => kept,
            Err(refused) => {
                let code = refused.refusal.code().to_owned();
                let record = self.refusal(Stamp::at(now_ms), refused);
                let withheld = u64::try_from(tools.len()).unwrap_or(u64::MAX);
                listing.withheld = withheld;
                listing.withheld_by.insert(code, withheld);
                self.log_list(record, about, listing, started);
                return vec![false; tools.len()];
            }
        };
        let mut kept = Vec::with_capacity(tools.len());
        for outcome in granted {
            match outcome {
                Ok(()) => {
                    listing.kept += 1;
                    kept.push(true);
                }
                Err(code) => {
                    listing.withheld += 1;
                    *listing.withheld_by.entry(code.to_owned()).or_default() += 1;
                    kept.push(false);
                }
            }
        }
        let effect = if listing.kept > 0 { Effect::Allow } else { Effect::Deny };
        let stamp = Stamp::at(now_ms);
        let mut record = DecisionRecord::of(
            &Decision::new(effect, ReasonCode::NoRules),
            self.point,
            stamp.id,
            stamp.time,
        );
        record.reason = "TOOLS_LISTED".to_owned();
        self.log_list(record, about, listing, started);
        kept
    }

    /// Each listed tool kept (`Ok`) or withheld with its reason code, for the principal
    /// of `caller`; `Err` when no tool can be decided (no principal, not configured, the
    /// agent's grant unreadable).
    async fn keep(
        &self,
        caller: Caller<'_>,
        tools: &[Listed<'_>],
        now_ms: i64,
        about: &mut About,
    ) -> Result<Vec<Result<(), &'static str>>, Refused> {
        let (config, point) = self.setup.as_ref().map_err(not_configured)?;
        let known = identify(config, point, caller, now_ms).await?;
        about.agent_id.clone_from(&known.agent_id);
        let mut context = prepared(&known)?;
        about.principal_id = context.user_id().map(str::to_owned);
        let agent_grant = match known.agent_id.as_deref() {
            Some(agent_id) => Some(point.agent_grant(agent_id, &context, now_ms).await?),
            None => None,
        };
        context.set_agent_id(known.agent_id.as_deref());
        let mut kept = Vec::with_capacity(tools.len());
        for listed in tools {
            let loaded = match self.find(point, listed.target, listed.tool, now_ms).await {
                Ok(Found { loaded }) => loaded,
                Err(refused) => {
                    kept.push(Err(refused.refusal.code()));
                    continue;
                }
            };
            let tool = loaded.tool();
            let grant = match (&agent_grant, known.agent_id.as_deref()) {
                (Some(granted), Some(agent_id)) => Some(granted.grant(agent_id, &tool.tool_id)),
                _ => None,
            };
            let decided = decide_access(tool, loaded.rules(), &mut context, grant.as_ref());
            kept.push(match decided.is_allowed() {
                true => Ok(()),
                false => Err(decided.reason_code(self.point)),
            });
        }
        Ok(kept)
    }

    /// Writes the one decision line of a `tools/list`.
    fn log_list(
        &self,
        mut record: DecisionRecord,
        about: About,
        listing: Listing,
        started: Instant,
    ) {
        about.onto(&mut record);
        if record.message.is_none() {
            record.message =
                Some(format!("tools/list: {} kept, {} withheld", listing.kept, listing.withheld));
        }
        record.listed = Some(listing);
        record.eval_micros = registry_access::record::micros_since(started);
        (self.log)(record);
    }

    /// The decision line of a refusal before (or instead of) a rule deciding.
    fn refusal(&self, stamp: Stamp, refused: Refused) -> DecisionRecord {
        let code = refused.refusal.code();
        DecisionRecord::refusal(self.point, stamp.id, stamp.time, code, refused.message)
    }

    /// A method that is neither `tools/call` nor `tools/list`: it passes, with a
    /// decision line saying so.
    pub fn passed(&self, method: &str) {
        let now_ms = self.clock.now_ms();
        let stamp = Stamp::at(now_ms);
        let allowed = Decision::new(Effect::Allow, ReasonCode::NoRules);
        let mut record = DecisionRecord::of(&allowed, self.point, stamp.id, stamp.time);
        record.reason = "NOT_A_TOOL_CALL".to_owned();
        let method = named(method);
        record.message =
            Some(format!("method `{method}` passes: only tools/call and tools/list are decided"));
        (self.log)(record);
    }

    /// The registry tool `target` maps to (decision 93), and its function `tool`.
    async fn find(
        &self,
        point: &Point<S>,
        target: &str,
        tool: &str,
        now_ms: i64,
    ) -> Result<Found, Refused> {
        // a name no tool can carry is not looked up: the table refuses some (DynamoDB's
        // keys), and a refusal would hold every other call back (decision 93)
        let tagged = if is_tag_value(target) {
            point.tool_tagged(TARGET_TAG, target, now_ms).await?
        } else {
            None
        };
        let tool_id = match tagged {
            Some(tool_id) => tool_id,
            None if is_id(target) => target.to_owned(),
            None => {
                return Err(Refused {
                    refusal: Refusal::UnknownTool,
                    message: format!("no registry tool is served as target {}", quote(target)),
                });
            }
        };
        let loaded = point.tool(&tool_id, now_ms).await?;
        if !loaded.has_function(tool) {
            return Err(Refused {
                refusal: Refusal::UnknownTool,
                message: format!("tool `{tool_id}` has no function {}", quote(tool)),
            });
        }
        Ok(Found { loaded })
    }
}

/// Longest name (method, target, tool) a decision line repeats.
const MAX_NAME_CHARS: usize = 128;

/// Most argument errors a decision line lists.
const MAX_ARGUMENT_ERRORS: usize = 10;

/// A name the caller chose, as a decision line repeats it (at most [`MAX_NAME_CHARS`]).
fn named(name: &str) -> String {
    name.chars().take(MAX_NAME_CHARS).collect()
}

/// The principal's context, ready to evaluate.
fn prepared(known: &Known) -> Result<PreparedContext<'_>, Refused> {
    PreparedContext::from_json(known.context.json().as_bytes()).map_err(|e| Refused {
        refusal: Refusal::InvalidSignedContext,
        message: format!("the principal's context is invalid: {e}"),
    })
}

fn not_configured(error: &ConfigError) -> Refused {
    Refused { refusal: Refusal::NotConfigured, message: error.to_string() }
}
