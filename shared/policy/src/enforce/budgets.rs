//! Session budgets and rates at a point (SPEC section 19): when the agent has limits,
//! the tool a rate, or its call rules read `session`, [`decide`](crate::decide) admits
//! the call against the session's counters in the registry's table, in one conditional
//! write, before the handler runs; what cannot be counted is refused. The agent's limits are cached like the tool's rules, on the same timer
//! ([`Freshness`]); while the table fails, counts are not tried until it backs off.

use std::sync::Arc;

use registry_core::AgentDefinition;
use registry_core::session::session_id_problem;
use registry_store::Store;

use crate::admit::Known;
use crate::decide::{Budget, Counting, counts_calls};
use crate::stage::Reason;

use super::clock::Clock;
use super::fresh::{Freshness, Stale, Unread};
use super::loaded::Loaded;
use super::point::Session;
use super::source::RuleSource;

/// An agent as last read (`None`: there is none), and when it was read.
type CachedAgent = (Option<Arc<AgentDefinition>>, i64);

/// Most agents a container keeps; when full, the one least worth keeping makes room.
const MAX_AGENTS: usize = 1_000;

/// The agents' limits as last read, and the counters this container wrote last.
#[derive(Debug)]
pub(crate) struct Budgets {
    agents: quick_cache::sync::Cache<String, CachedAgent>,
    known: Known,
}

impl Default for Budgets {
    fn default() -> Self {
        Self { agents: quick_cache::sync::Cache::new(MAX_AGENTS), known: Known::default() }
    }
}

impl Budgets {
    /// The agent `agent_id`, on the point's one timer with the rules (`fresh`): from the
    /// cache while fresh, re-read when due, served stale while the table does not answer
    /// until the bound; `Err` (why, as [`Freshness::serve`] says) when nothing usable is
    /// cached and it cannot be read.
    async fn agent<S: RuleSource>(
        &self,
        source: &S,
        fresh: &Freshness,
        clock: &dyn Clock,
        agent_id: &str,
        now_ms: i64,
    ) -> Result<Option<Arc<AgentDefinition>>, Stale> {
        let cached = self.agents.get(agent_id);
        let read = async {
            source
                .agent(agent_id)
                .await
                .map(|a| a.map(Arc::new))
                .map_err(|e| Unread::Unreachable(e.to_string()))
        };
        match fresh.serve(clock, cached, now_ms, read).await {
            Ok((agent, read_at, read_now)) => {
                if read_now {
                    self.agents.insert(agent_id.to_owned(), (agent.clone(), read_at));
                }
                Ok(agent)
            }
            Err(stale) => Err(stale),
        }
    }

    /// How a call in `session` counts: not at all when nothing needs counting
    /// ([`counts_calls`]), in the session's counters, or refused with why
    /// it cannot be counted (the agent's limits unreadable, no session or a session id
    /// Bedrock never makes, no counters, the table backing off). Without an agent or a
    /// session only the tool's rate counts, and a call that needs a session is refused.
    pub async fn count<'s, S: RuleSource>(
        &self,
        session: Session<'_>,
        source: &'s S,
        loaded: &Loaded,
        (fresh, clock): (&Freshness, &dyn Clock),
        now_ms: i64,
    ) -> Count<'s> {
        let refused = |reason, message: String| Count::Refused(reason, message);
        let agent = match session.agent_id {
            None => None,
            Some(agent_id) => match self.agent(source, fresh, clock, agent_id, now_ms).await {
                Ok(agent) => agent,
                Err(stale) => {
                    let e = match stale {
                        Stale::Never(e) | Stale::Absent(e) => e,
                        Stale::Expired { age_ms, error } => format!(
                            "the cached agent is {age_ms} ms old, the bound is {} ms; {error}",
                            fresh.bound_ms()
                        ),
                    };
                    let message = format!("the agent's limits could not be read: {e}");
                    return refused(Reason::BudgetsUnavailable, message);
                }
            },
        };
        if !counts_calls(&loaded.tool, &loaded.rules, agent.as_deref()) {
            return Count::Uncounted;
        }
        let needs_session =
            agent.as_ref().is_some_and(|a| a.limits.is_some()) || loaded.rules.call.reads_session();
        let key = match (session.agent_id, session.session_id) {
            (Some(agent_id), Some(session_id)) => {
                if let Some(problem) = session_id_problem(session_id) {
                    return refused(Reason::InvalidSession, format!("the sessionId {problem}"));
                }
                Some(registry_store::session_key(agent_id, session_id))
            }
            _ if needs_session => {
                let message = "the call counts in a session and has no agent and session";
                return refused(Reason::InvalidSession, message.to_owned());
            }
            _ => None,
        };
        let Some(counters) = source.counters() else {
            let message = "no store keeps this tool's session counts".to_owned();
            return refused(Reason::BudgetsUnavailable, message);
        };
        // while the table is failing, the counts are not tried on every call
        if let Err(backing_off) = fresh.may_try(now_ms) {
            let message = format!("the session's counts could not be read: {backing_off}");
            return refused(Reason::BudgetsUnavailable, message);
        }
        Count::In { counters, session: key, agent }
    }

    /// The counters this container wrote last.
    pub fn known(&self) -> &Known {
        &self.known
    }
}

/// How one call counts, as [`Budgets::count`] found.
pub(crate) enum Count<'s> {
    /// Nothing needs counting.
    Uncounted,
    /// In the session `session` (its counter key) of `agent`, in `counters`; without a
    /// session, only the tool's rate.
    In { counters: &'s dyn Store, session: Option<String>, agent: Option<Arc<AgentDefinition>> },
    /// It cannot be counted: the reason and what went wrong.
    Refused(Reason, String),
}

impl Count<'_> {
    /// The counting `decide` takes, with the container's `known` counters.
    pub fn counting<'a>(&'a self, known: &'a Known) -> Counting<'a> {
        match self {
            Self::Uncounted => Counting::Uncounted,
            Self::In { counters, session, agent } => Counting::In(Budget {
                counters: *counters,
                known,
                session: session.as_deref().map(|key| (key, agent.as_deref())),
            }),
            Self::Refused(reason, message) => {
                Counting::Refused { reason: *reason, message: message.clone() }
            }
        }
    }
}
