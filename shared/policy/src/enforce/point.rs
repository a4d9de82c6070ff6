//! The table-mode decision of one call of any tool: what a point beside the call does
//! with the registry's table (the action-group guard of `registry-guard`, and the MCP
//! gateways' point in `registry-gateway`). It keeps the caches (verified tokens, each
//! tool's compiled rules, the agents' limits, tags' tools) on one timer
//! ([`Freshness`]) and calls [`decide`](crate::decide). The grant of a principal's
//! agent (SPEC section 21) is re-derived here from the agent's definitions, cached on
//! the same timer: what disabling, retiring or deleting an agent changes stops its
//! tokens within the staleness bound (decision 98).

use std::sync::Arc;
use std::time::Duration;

use crate::decide::{CallRequest, decide};
use crate::decision::CallDecision;
use crate::error::DecideError;
use crate::grant::{AgentGrant, Fetched, Grant, agent_grant};
use crate::stage::Stage;
use registry_access::{PreparedContext, ToolCall};
use registry_core::resolve::BoundedCache;
use registry_core::{LifecycleStatus, Release, release_order};
use registry_store::StoreError;
use registry_token::{KeySource, Principal};

use super::budgets::{Budgets, Count};
use super::clock::{Clock, SystemClock};
use super::fresh::{Freshness, READ_TIMEOUT, Stale, Unread, within};
use super::loaded::Loaded;
use super::principals::Verified;
use super::refusal::Refusal;
use super::rules::RuleCache;
use super::source::RuleSource;

/// Most tag lookups remembered.
const MAX_TAGS: usize = 1_000;

/// Most agents whose definitions (for their grant) a point keeps.
const MAX_GRANTS: usize = 1_000;

/// Compiled agent and tool rules a point keeps for resolving grants, of each kind.
const MAX_COMPILED: usize = 1_000;

/// An agent's definitions as last read (`None`: there is no live agent), and when.
type CachedDefinitions = (Option<Arc<Fetched>>, i64);

/// A refusal before (or instead of) a rule deciding, and what went wrong (for the
/// decision line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// Why, as a code.
    pub refusal: Refusal,
    /// What went wrong.
    pub message: String,
}

impl Refused {
    /// A refusal for `refusal`, saying `message`.
    pub fn new(refusal: Refusal, message: impl Into<String>) -> Self {
        Self { refusal, message: message.into() }
    }
}

/// Who makes a call, as a point knows it once the principal is verified.
#[derive(Debug, Clone, Copy, Default)]
pub struct Session<'a> {
    /// The agent making the call (its `limits` apply), when known.
    pub agent_id: Option<&'a str>,
    /// The session the call counts in, when it belongs to one.
    pub session_id: Option<&'a str>,
}

/// Decides calls of any tool in the table a [`RuleSource`] reads, with its caches.
pub struct Point<S> {
    source: S,
    clock: Arc<dyn Clock>,
    fresh: Freshness,
    rules: RuleCache,
    verified: Verified,
    budgets: Budgets,
    tags: quick_cache::sync::Cache<(String, String), (Option<String>, i64)>,
    grants: quick_cache::sync::Cache<String, CachedDefinitions>,
    compiled: BoundedCache,
}

impl<S> std::fmt::Debug for Point<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Point").field("bound_ms", &self.fresh.bound_ms()).finish_non_exhaustive()
    }
}

impl<S: RuleSource> Point<S> {
    /// A point reading `source`, serving what it read for at most `max_staleness` when
    /// the source fails, on the system clock.
    pub fn new(source: S, max_staleness: Duration) -> Self {
        let max_staleness_ms = i64::try_from(max_staleness.as_millis()).unwrap_or(i64::MAX);
        Self {
            source,
            clock: Arc::new(SystemClock),
            fresh: Freshness::new(max_staleness_ms),
            rules: RuleCache::default(),
            verified: Verified::default(),
            budgets: Budgets::default(),
            tags: quick_cache::sync::Cache::new(MAX_TAGS),
            grants: quick_cache::sync::Cache::new(MAX_GRANTS),
            compiled: BoundedCache::new(MAX_COMPILED),
        }
    }

    /// This point reading the time from `clock`.
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The clock it reads.
    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    /// `token`'s claims, verified with `keys` at `now_ms`; a token seen before (byte for
    /// byte) is not verified again, its expiry is checked all the same.
    pub async fn verify(
        &self,
        keys: &KeySource,
        token: &str,
        now_ms: i64,
    ) -> Result<Arc<Principal>, Refused> {
        match self.verified.verify(keys, token, now_ms.div_euclid(1000)).await {
            Ok(principal) => Ok(principal),
            Err(e) if e.is_expired() => {
                Err(Refused::new(Refusal::ExpiredSignedContext, e.to_string()))
            }
            Err(e) => Err(Refused::new(Refusal::InvalidSignedContext, e.to_string())),
        }
    }

    /// The live tool `tool_id`, its rules compiled, from the cache while fresh.
    pub async fn tool(&self, tool_id: &str, now_ms: i64) -> Result<Arc<Loaded>, Refused> {
        self.rules
            .get(&self.source, &self.fresh, self.clock(), tool_id, now_ms)
            .await
            .map_err(|(refusal, message)| Refused::new(refusal, message))
    }

    /// The tool whose tag `key` is `value`: among the tools carrying it that are not
    /// retired, the highest release when they are releases of one name; `Ok(None)` when
    /// no tool carries it; refused when tools of several names do (ambiguous).
    pub async fn tool_tagged(
        &self,
        key: &str,
        value: &str,
        now_ms: i64,
    ) -> Result<Option<String>, Refused> {
        let slot = (key.to_owned(), value.to_owned());
        let cached = self.tags.get(&slot);
        let read = async {
            let tools = self.source.tools_tagged(key, value).await.map_err(|e| {
                Unread::Unreachable(format!("the registry's table could not be read: {e}"))
            })?;
            pick_tagged(key, value, tools)
        };
        match self.fresh.serve(self.clock(), cached, now_ms, read).await {
            Ok((id, read_at, read_now)) => {
                if read_now {
                    self.tags.insert(slot, (id.clone(), read_at));
                }
                Ok(id)
            }
            Err(Stale::Never(message) | Stale::Absent(message)) => {
                Err(Refused::new(Refusal::RulesUnavailable, message))
            }
            Err(Stale::Expired { age_ms, error }) => Err(Refused::new(
                Refusal::RulesStale,
                format!(
                    "the cached tag lookup is {age_ms} ms old, the bound is {} ms; {error}",
                    self.fresh.bound_ms()
                ),
            )),
        }
    }

    /// What the agent `agent_id` grants the principal of `context`
    /// ([`agent_grant`]), on the agent's definitions read through the
    /// point's one timer: re-read once half the bound old, served while the table does
    /// not answer until the bound, then refused (fail closed). A missing agent grants
    /// nothing.
    pub async fn agent_grant(
        &self,
        agent_id: &str,
        context: &PreparedContext<'_>,
        now_ms: i64,
    ) -> Result<AgentGrant, Refused> {
        let cached = self.grants.get(agent_id);
        let read = async {
            self.source.definitions(agent_id).await.map(|d| d.map(Arc::new)).map_err(|e| {
                Unread::Unreachable(format!("the registry's table could not be read: {e}"))
            })
        };
        match self.fresh.serve(self.clock(), cached, now_ms, read).await {
            Ok((defs, read_at, read_now)) => {
                if read_now {
                    self.grants.insert(agent_id.to_owned(), (defs.clone(), read_at));
                }
                Ok(agent_grant(defs.as_deref(), &self.compiled, agent_id, context))
            }
            Err(Stale::Never(message) | Stale::Absent(message)) => {
                Err(Refused::new(Refusal::RulesUnavailable, message))
            }
            Err(Stale::Expired { age_ms, error }) => Err(Refused::new(
                Refusal::RulesStale,
                format!(
                    "the cached agent is {age_ms} ms old, the bound is {} ms; {error}",
                    self.fresh.bound_ms()
                ),
            )),
        }
    }

    /// Whether the agent `agent_id` grants the release `tool_id` to the principal of
    /// `context` ([`Point::agent_grant`] for one release).
    pub async fn grant(
        &self,
        agent_id: &str,
        context: &PreparedContext<'_>,
        tool_id: &str,
        now_ms: i64,
    ) -> Result<Grant, Refused> {
        Ok(self.agent_grant(agent_id, context, now_ms).await?.grant(agent_id, tool_id))
    }

    /// Decides `call` of `loaded` (its arguments checked against the tool's schema) for
    /// the principal of `context`, counting it in `session`: [`decide`]
    /// with the agent's `grant` ([`Point::grant`]; `None` only for a caller that names
    /// no agent), its limits and the counters of the table. Refused when the call
    /// needs counting and cannot be counted, or the counters fail.
    pub async fn decide_call(
        &self,
        loaded: &Loaded,
        context: &mut PreparedContext<'_>,
        session: Session<'_>,
        grant: Option<&Grant>,
        call: ToolCall<'_>,
        now_ms: i64,
    ) -> Result<CallDecision, Refused> {
        let timer = (&self.fresh, self.clock());
        let count = self.budgets.count(session, &self.source, loaded, timer, now_ms).await;
        let request = CallRequest {
            tool: &loaded.tool,
            rules: &loaded.rules,
            context,
            call,
            grant,
            explain: false,
            now_ms,
        };
        let deciding = decide(request, count.counting(self.budgets.known()));
        let decided = within(deciding, || {
            let message = format!("no answer within {} ms", READ_TIMEOUT.as_millis());
            Err(DecideError::Counters(StoreError::Unavailable(message)))
        })
        .await;
        let counted = matches!(count, Count::In { .. });
        match decided {
            Ok(decided) => {
                if counted && matches!(decided.stage, Stage::Call | Stage::Limit) {
                    self.fresh.answered();
                }
                Ok(decided)
            }
            Err(DecideError::Counters(e)) => {
                match &e {
                    StoreError::Unavailable(_) => {
                        self.fresh.failed(&e.to_string(), self.clock.now_ms())
                    }
                    _ => self.fresh.answered(),
                }
                let message = format!("the session's counts could not be written: {e}");
                Err(Refused::new(Refusal::BudgetsUnavailable, message))
            }
        }
    }
}

/// The one tool of `tools` (the definitions tagged `key=value`, ids and lifecycle) the
/// tag names; tools of several names are unusable (ambiguous).
fn pick_tagged(
    key: &str,
    value: &str,
    tools: Vec<(String, LifecycleStatus)>,
) -> Result<Option<String>, Unread> {
    let live: Vec<String> = tools
        .into_iter()
        .filter(|(_, status)| *status != LifecycleStatus::Retired)
        .map(|(id, _)| id)
        .collect();
    let name = |id: &str| Release::parse(id).map_or_else(|| id.to_owned(), |r| r.name);
    let Some(first) = live.first() else { return Ok(None) };
    let first_name = name(first);
    if let Some(other) = live.iter().find(|id| name(id) != first_name) {
        return Err(Unread::Unusable(format!(
            "tag `{key}={value}` names tools of several names (`{first}`, `{other}`): one tool per gateway target"
        )));
    }
    Ok(live.into_iter().max_by(|a, b| release_order(a, b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tagged(ids: &[(&str, LifecycleStatus)]) -> Vec<(String, LifecycleStatus)> {
        ids.iter().map(|(id, s)| ((*id).to_owned(), *s)).collect()
    }

    #[test]
    fn a_tag_names_the_highest_live_release_of_one_name() {
        use LifecycleStatus::{Active, Deprecated, Retired};
        let pick = |ids| pick_tagged("gateway-target", "refunds", tagged(ids));
        assert_eq!(pick(&[]), Ok(None));
        assert_eq!(pick(&[("refund@1.0.0", Active)]), Ok(Some("refund@1.0.0".into())));
        assert_eq!(
            pick(&[
                ("refund@1.2.0", Deprecated),
                ("refund@1.10.0", Active),
                ("refund@2.0.0", Retired)
            ]),
            Ok(Some("refund@1.10.0".into()))
        );
        assert_eq!(pick(&[("refund@2.0.0", Retired)]), Ok(None));
        let two = pick(&[("refund@1.0.0", Active), ("payout@1.0.0", Active)]);
        assert!(matches!(two, Err(Unread::Unusable(e)) if e.contains("several names")));
    }
}
