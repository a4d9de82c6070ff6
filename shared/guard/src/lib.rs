#![doc = include_str!("../README.md")]

mod arguments;
mod authorize;
mod config;
mod dynamo;
mod handle;
mod remote;
mod run;
mod verdict;

use std::sync::Arc;
use std::time::Instant;

use registry_access::{DecisionPoint, DecisionRecord, PreparedContext, ToolCall};
use registry_policy::{CallDecision, Loaded, Point, Reason, Refused, Session, Stamp};
use registry_token::SESSION_ATTRIBUTE;

use bedrock_action_group::{ActionGroupEvent, Arguments, ToolError, respond};

pub use authorize::{AuthorizeError, RuleSetAuthorizer};
pub use config::{ENDPOINT_ENV, GuardConfig, SWITCH_ENV, TABLE_ENV, TOOL_ID_ENV, switched_off};
pub use dynamo::DynamoSource;
pub use handle::handle_guarded;
pub use registry_config::ConfigError;
// the enforcement core's parts a guard is built with (`registry_policy::enforce`)
pub use registry_policy::{
    AUDIENCE_ENV, Clock, DEFAULT_MAX_STALENESS, ISSUER_ENV, JWKS_ENV, JWKS_URL_ENV,
    MAX_STALENESS_ENV, Refusal, RuleSource, StoreSource, SystemClock,
};
pub use remote::{
    AUTH_ENV, REMOTE_TIMEOUT, Remote, RemoteAuth, RemoteConfig, RemoteError, TOKEN_ENV, URL_ENV,
};
pub use run::{run_guarded, run_with_guard};
pub use verdict::Verdict;

/// Where decision lines go (stdout in a Lambda, where CloudWatch reads them).
type DecisionLog = Box<dyn Fn(&str) + Send + Sync>;

/// How the guard decides: on the tool's rules read from a [`RuleSource`] (the table),
/// or by asking the registry ([`Remote`]).
enum Setup<S> {
    Table(GuardConfig, Box<Point<S>>),
    Remote(Remote),
}

/// Checks each call of one tool before its handler runs.
pub struct Guard<S> {
    /// How it decides, or why it cannot (every call refused).
    setup: Result<Setup<S>, ConfigError>,
    clock: Arc<dyn Clock>,
    log: DecisionLog,
}

impl<S> std::fmt::Debug for Guard<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard").field("tool", &self.tool_id()).finish_non_exhaustive()
    }
}

impl<S> Guard<S> {
    /// The tool this guard checks calls of, when configured.
    pub fn tool_id(&self) -> Option<&str> {
        match self.setup.as_ref().ok()? {
            Setup::Table(config, _) => Some(config.tool_id.as_str()),
            Setup::Remote(remote) => Some(remote.tool_id()),
        }
    }

    /// Whether this guard asks the registry (remote mode) rather than reading its table.
    pub fn is_remote(&self) -> bool {
        matches!(self.setup, Ok(Setup::Remote(_)))
    }
}

/// What one check found, before it becomes a verdict and a decision line.
pub(crate) struct Checked {
    record: DecisionRecord,
    verdict: Verdict,
}

impl<S: RuleSource> Guard<S> {
    /// A guard for `config.tool_id`, reading its rules from `source`, with the system
    /// clock and decision lines on stdout.
    pub fn new(config: GuardConfig, source: S) -> Self {
        let point = Point::new(source, config.max_staleness);
        Self {
            setup: Ok(Setup::Table(config, Box::new(point))),
            ..Self::misconfigured(ConfigError { problems: Vec::new() })
        }
    }

    /// A guard in remote mode: each call decided by the registry `remote` asks.
    pub fn remote(remote: Remote) -> Self {
        Self {
            setup: Ok(Setup::Remote(remote)),
            ..Self::misconfigured(ConfigError { problems: Vec::new() })
        }
    }

    /// A guard that refuses every call, because of `error` (logged with each refusal).
    pub fn misconfigured(error: ConfigError) -> Self {
        Self { setup: Err(error), clock: Arc::new(SystemClock), log: Box::new(stdout_line) }
    }

    /// This guard reading the time from `clock`.
    #[must_use]
    pub fn with_clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Arc::new(clock);
        if let Ok(Setup::Table(config, point)) = self.setup {
            self.setup =
                Ok(Setup::Table(config, Box::new(point.with_clock(Arc::clone(&self.clock)))));
        }
        self
    }

    /// This guard writing each decision line (one JSON document, no newline) to `log`.
    #[must_use]
    pub fn with_log(mut self, log: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.log = Box::new(log);
        self
    }

    /// Decides `event`'s call: [`Verdict::Allow`] to run the handler, or the response
    /// to answer with. Emits one decision line either way.
    pub async fn check(&self, event: &ActionGroupEvent) -> Verdict {
        let started = Instant::now();
        let now_ms = self.clock.now_ms();
        let mut checked = match &self.setup {
            Err(problem) => refused(event, Refusal::NotConfigured, problem.to_string(), now_ms),
            Ok(Setup::Table(config, point)) => {
                Self::check_in_table(event, config, point, now_ms).await
            }
            Ok(Setup::Remote(remote)) => remote.ask(event, now_ms).await,
        };
        let record = &mut checked.record;
        record.tool_id = record.tool_id.take().or_else(|| self.tool_id().map(str::to_owned));
        record.function = Some(event.name().to_owned());
        // only a session id as Bedrock makes them: anything else is unbounded input
        record.session_id = Some(event.session_id())
            .filter(|s| registry_core::session::session_id_problem(s).is_none())
            .map(str::to_owned);
        record.eval_micros = registry_access::record::micros_since(started);
        (self.log)(&record.to_emf_line(now_ms));
        checked.verdict
    }

    /// Why this guard refuses every call, when it does (missing or invalid settings).
    pub fn problem(&self) -> Option<&ConfigError> {
        self.setup.as_ref().err()
    }

    /// Table mode: `event`'s principal verified, its tool's rules and its agent's grant
    /// read through `point`, its arguments checked, and [`Point::decide_call`].
    async fn check_in_table(
        event: &ActionGroupEvent,
        config: &GuardConfig,
        point: &Point<S>,
        now_ms: i64,
    ) -> Checked {
        let refuse = |Refused { refusal, message }| refused(event, refusal, message, now_ms);
        let Some(token) = event.session_attributes().get(SESSION_ATTRIBUTE) else {
            let message = format!("no `{SESSION_ATTRIBUTE}` session attribute");
            return refused(event, Refusal::NoSignedContext, message, now_ms);
        };
        let principal = match point.verify(&config.keys, token, now_ms).await {
            Ok(principal) => principal,
            Err(refusal) => return refuse(refusal),
        };
        if principal.session_id() != event.session_id() {
            let message = "the token's sid is not the event's sessionId".to_owned();
            return refused(event, Refusal::SessionMismatch, message, now_ms);
        }
        let agent_id = std::borrow::Cow::Borrowed(principal.agent_id());
        let mut prepared = match PreparedContext::from_json(principal.context_json().as_bytes()) {
            Ok(prepared) => prepared,
            Err(e) => return refused(event, Refusal::InvalidSignedContext, e.to_string(), now_ms),
        };
        prepared.set_agent_id(Some(&agent_id));
        let principal_id = prepared.user_id().map(str::to_owned);
        let with_principal = |mut checked: Checked| {
            checked.record.agent_id = Some(agent_id.clone().into_owned());
            checked.record.principal_id.clone_from(&principal_id);
            checked
        };
        let loaded = match point.tool(&config.tool_id, now_ms).await {
            Ok(loaded) => loaded,
            // the guard's own tool missing is its rules being unavailable
            Err(Refused { refusal: Refusal::UnknownTool, message }) => {
                let refused = Refused { refusal: Refusal::RulesUnavailable, message };
                return with_principal(refuse(refused));
            }
            Err(refusal) => return with_principal(refuse(refusal)),
        };
        let version = loaded.tool().server.version;
        let with_tool = |mut checked: Checked| {
            checked.record.tool_version = version;
            with_principal(checked)
        };
        let checked = match event {
            ActionGroupEvent::Function(call) => {
                arguments::arguments(&loaded, &call.function, &call.parameters)
            }
            ActionGroupEvent::Api(_) => Arguments::from_event(event),
        };
        let arguments = match checked {
            Ok(arguments) => arguments,
            Err(invalid) => {
                let message = format!("{} invalid arguments", invalid.errors.len());
                let mut checked = refused(event, Refusal::InvalidArguments, message, now_ms);
                checked.verdict =
                    Verdict::Deny(Box::new(respond::<()>(event, Err(ToolError::from(invalid)))));
                return with_tool(checked);
            }
        };
        let http_method = match event {
            ActionGroupEvent::Api(e) => Some(e.http_method.as_str()),
            ActionGroupEvent::Function(_) => None,
        };
        let call = ToolCall { function: event.name(), http_method, arguments: arguments.as_map() };
        let grant = match point.grant(&agent_id, &prepared, &loaded.tool().tool_id, now_ms).await {
            Ok(grant) => grant,
            Err(refusal) => return with_tool(refuse(refusal)),
        };
        let session = Session { agent_id: Some(&agent_id), session_id: Some(event.session_id()) };
        let grant = Some(&grant);
        with_tool(
            match point.decide_call(&loaded, &mut prepared, session, grant, call, now_ms).await {
                Ok(decided) => conclude(event, &loaded, &decided, now_ms),
                Err(refusal) => refuse(refusal),
            },
        )
    }
}

impl Guard<DynamoSource> {
    /// The guard a Lambda runs, its mode chosen by the environment: with [`URL_ENV`],
    /// remote ([`RemoteConfig::from_vars`]: the registry decides each call); else table
    /// ([`GuardConfig::from_vars`], rules from the table named by [`TABLE_ENV`]). A
    /// missing or invalid setting gives a guard that refuses every call, naming the
    /// problem in each decision line.
    pub async fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok();
        match RemoteConfig::from_vars(var) {
            Ok(None) => {}
            Ok(Some(config)) => {
                return match Remote::new(config) {
                    Ok(remote) => Self::remote(remote),
                    Err(e) => Self::misconfigured(ConfigError {
                        problems: vec![registry_config::Problem::Invalid {
                            name: URL_ENV,
                            reason: e.to_string(),
                        }],
                    }),
                };
            }
            Err(problem) => return Self::misconfigured(problem),
        }
        let config = GuardConfig::from_vars(var);
        let source = DynamoSource::from_env().await;
        match (config, source) {
            (Ok(config), Ok(source)) => Self::new(config, source),
            (config, source) => {
                let errors = [config.err(), source.err()].into_iter().flatten();
                Self::misconfigured(ConfigError {
                    problems: errors.flat_map(|e| e.problems).collect(),
                })
            }
        }
    }
}

/// What the point decided, as a verdict and its decision line: a denial by a rule or a
/// limit is a `REPROMPT` naming why, a switched-off tool or a call that cannot be
/// counted a `FAILURE`.
fn conclude(
    event: &ActionGroupEvent,
    loaded: &Loaded,
    decided: &CallDecision,
    now_ms: i64,
) -> Checked {
    let mut record = decided.record(DecisionPoint::Guard, Stamp::at(now_ms));
    let refusal = match decided.reason {
        _ if decided.is_allowed() => return Checked { record, verdict: Verdict::Allow },
        Reason::SwitchedOff(_) => {
            record.message = Some("the tool's lifecycle status is disabled or retired".into());
            Some(Refusal::ToolSwitchedOff)
        }
        Reason::BudgetsUnavailable => Some(Refusal::BudgetsUnavailable),
        Reason::InvalidSession => Some(Refusal::InvalidSession),
        Reason::Rules(_) | Reason::Limit | Reason::NotGranted => None,
    };
    let response = match refusal {
        Some(refusal) => verdict::failure(event, refusal),
        None => verdict::denied(event, &decided.why(loaded.tool()).unwrap_or_default()),
    };
    Checked { record, verdict: Verdict::Deny(Box::new(response)) }
}

/// A refusal before any rule decided: its decision line and its `FAILURE` response.
pub(crate) fn refused(
    event: &ActionGroupEvent,
    refusal: Refusal,
    message: String,
    now_ms: i64,
) -> Checked {
    let Stamp { id, time } = Stamp::at(now_ms);
    let record = DecisionRecord::refusal(DecisionPoint::Guard, id, time, refusal.code(), message);
    Checked { record, verdict: Verdict::Deny(Box::new(verdict::failure(event, refusal))) }
}

/// Writes one decision line to stdout.
fn stdout_line(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
}
