#![doc = include_str!("../README.md")]

mod handle;
pub mod members;
pub mod rpc;
pub mod unreadable;
pub mod wire;

use std::sync::Arc;

use registry_access::{DecisionPoint, DecisionRecord};
use registry_gateway::{Gateway, GatewayConfig};
use registry_guard::{DynamoSource, RuleSource};
use registry_policy::Stamp;

pub use handle::{AUTHORIZATION, INVALID_REQUEST, MALFORMED_EVENT, SESSION_HEADER};

/// Where decision lines go.
type Log = Arc<dyn Fn(DecisionRecord) + Send + Sync>;

/// The interceptor: the gateway core deciding each event's calls and tools, and where
/// the decision lines go (the core's and this function's own, for events it cannot read).
pub struct Interceptor<S> {
    gateway: Gateway<S>,
    log: Log,
}

impl<S> std::fmt::Debug for Interceptor<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interceptor").finish_non_exhaustive()
    }
}

/// The decision point every line of this function names.
pub const POINT: DecisionPoint = DecisionPoint::GatewayInterceptor;

impl<S: RuleSource> Interceptor<S> {
    /// Decides with `gateway`, writing every decision line to `log`.
    pub fn new(gateway: Gateway<S>, log: impl Fn(DecisionRecord) + Send + Sync + 'static) -> Self {
        let log: Log = Arc::new(log);
        let lines = Arc::clone(&log);
        Self { gateway: gateway.with_log(move |record| lines(record)), log }
    }

    /// Logs the refusal of an event before any decision: `reason` and `message`.
    fn refuse(&self, reason: &str, message: String) {
        let Stamp { id, time } = Stamp::at(now_ms());
        let message = rpc::cut(&message).into_owned();
        (self.log)(DecisionRecord::refusal(POINT, id, time, reason, message));
    }
}

impl Interceptor<DynamoSource> {
    /// The interceptor a Lambda runs: [`GatewayConfig::from_vars`] and the table
    /// ([`DynamoSource::from_env`]); a missing or invalid setting gives one that denies
    /// every call and lists no tool, naming the problem in each decision line (and once
    /// on stderr). Decision lines go to stdout as CloudWatch EMF documents.
    pub async fn from_env() -> Self {
        let config = GatewayConfig::from_vars(|name| std::env::var(name).ok());
        let source = DynamoSource::from_env().await;
        let gateway = match (config, source) {
            (Ok(config), Ok(source)) => Gateway::new(config, source, POINT),
            (config, source) => {
                let problems = [config.err(), source.err()].into_iter().flatten();
                let error = registry_guard::ConfigError {
                    problems: problems.flat_map(|e| e.problems).collect(),
                };
                eprintln!("gateway interceptor: every call is denied and no tool listed: {error}");
                Gateway::misconfigured(error, POINT)
            }
        };
        Self::new(gateway, stdout_emf)
    }
}

/// Writes `record` to stdout as one CloudWatch embedded-metric-format line.
pub fn stdout_emf(record: DecisionRecord) {
    use std::io::Write;
    let line = record.to_emf_line(now_ms());
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
}

fn now_ms() -> i64 {
    registry_guard::Clock::now_ms(&registry_guard::SystemClock)
}
