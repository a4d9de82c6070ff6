//! Session budgets and rates in the guard (SPEC section 19): when the agent has limits,
//! the tool a rate, or its call rules read `session`, the call is admitted against the
//! session's counters in the registry's table, in one conditional write, before the
//! handler runs. The agent's limits are cached like the tool's rules, on the same timer
//! ([`Freshness`]); while the table fails, counts are not tried until it backs off.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use registry_access::{DecisionPoint, DecisionRecord, PreparedContext, ToolCall};
use registry_core::AgentDefinition;
use registry_core::session::session_id_problem;
use registry_store::StoreError;
use registry_store::budget::{
    Admission, Known, Verdict as Admitted, admit, rate_of, session_ttl_seconds,
};

use crate::clock::Clock;
use crate::fresh::{Freshness, Stale, Unread};
use crate::loaded::{Loaded, Stage};
use crate::source::RuleSource;
use crate::verdict::{self, Refusal, Verdict};
use crate::{Checked, refused, stamp};
use bedrock_action_group::ActionGroupEvent;

/// An agent as last read (`None`: there is none), and when it was read.
type CachedAgent = (Option<Arc<AgentDefinition>>, i64);

/// Most agents a container keeps before it starts afresh.
const MAX_AGENTS: usize = 1_000;

/// The agents' limits as last read, and the counters this container wrote last.
#[derive(Debug, Default)]
pub(crate) struct Budgets {
    agents: Mutex<HashMap<String, CachedAgent>>,
    known: Known,
}

impl Budgets {
    /// The agent `agent_id`, on the guard's one timer with the rules (`fresh`): from the
    /// cache while fresh, re-read when due, served stale while the table does not answer
    /// until the bound; `Err` when nothing usable is cached and it cannot be read.
    async fn agent<S: RuleSource>(
        &self,
        source: &S,
        fresh: &Freshness,
        clock: &dyn Clock,
        agent_id: &str,
        now_ms: i64,
    ) -> Result<Option<Arc<AgentDefinition>>, String> {
        let cached =
            self.agents.lock().unwrap_or_else(PoisonError::into_inner).get(agent_id).cloned();
        let read = async {
            source.agent(agent_id).await.map(|a| a.map(Arc::new)).map_err(Unread::Unreachable)
        };
        match fresh.serve(clock, cached, now_ms, read).await {
            Ok((agent, read_at, read_now)) => {
                if read_now {
                    let mut agents = self.agents.lock().unwrap_or_else(PoisonError::into_inner);
                    if agents.len() >= MAX_AGENTS {
                        agents.clear();
                    }
                    agents.insert(agent_id.to_owned(), (agent.clone(), read_at));
                }
                Ok(agent)
            }
            Err(Stale::Never(e)) => Err(e),
            Err(Stale::Expired { age_ms, error }) => Err(format!(
                "the cached agent is {age_ms} ms old, the bound is {} ms; {error}",
                fresh.bound_ms()
            )),
        }
    }

    /// Admits `call`, which lifecycle and access rules let through, when something
    /// counts it; `None` when nothing does (the call rules alone decide, as without
    /// budgets).
    #[allow(clippy::too_many_arguments)]
    pub async fn admit<S: RuleSource>(
        &self,
        event: &ActionGroupEvent,
        source: &S,
        loaded: &Loaded,
        prepared: &PreparedContext<'_>,
        call: &ToolCall<'_>,
        agent_id: &str,
        (fresh, clock): (&Freshness, &dyn Clock),
        now_ms: i64,
    ) -> Option<Checked> {
        let agent = match self.agent(source, fresh, clock, agent_id, now_ms).await {
            Ok(agent) => agent,
            Err(e) => {
                let message = format!("the agent's limits could not be read: {e}");
                return Some(refused(event, Refusal::BudgetsUnavailable, message, now_ms));
            }
        };
        let limits = agent.as_ref().and_then(|a| a.limits.as_ref());
        let rate = rate_of(&loaded.tool, prepared.user_id(), prepared.account_id());
        if limits.is_none() && rate.is_none() && !loaded.set.reads_session() {
            return None;
        }
        if let Some(problem) = session_id_problem(event.session_id()) {
            let message = format!("the event's sessionId {problem}");
            return Some(refused(event, Refusal::InvalidSession, message, now_ms));
        }
        let Some(store) = source.counters() else {
            let message = "no store keeps this tool's session counts".to_owned();
            return Some(refused(event, Refusal::BudgetsUnavailable, message, now_ms));
        };
        // while the table is failing, the counts are not tried on every call
        if let Err(backing_off) = fresh.may_try(now_ms) {
            let message = format!("the session's counts could not be read: {backing_off}");
            return Some(refused(event, Refusal::BudgetsUnavailable, message, now_ms));
        }
        let session = registry_store::session_key(agent_id, event.session_id());
        let admission = Admission {
            session: Some(&session),
            limits,
            rate: rate.as_ref().map(|(key, rate)| (key.as_str(), *rate)),
            function: event.name(),
            arguments: call.arguments,
            totals: loaded.set.session_totals(),
            session_ttl_seconds: session_ttl_seconds(agent.as_deref()),
        };
        let decide = |view: registry_access::SessionView<'_>| {
            loaded.set.evaluate_call_in(prepared, call, view)
        };
        let on_session = |d: &registry_access::Decision| loaded.set.decided_on_session(d);
        let (id, time) = stamp(now_ms);
        let admitted = admit(store, &self.known, &admission, now_ms, decide, on_session).await;
        match &admitted {
            Err(e @ StoreError::Unavailable(_)) => fresh.failed(&e.to_string(), clock.now_ms()),
            _ => fresh.answered(),
        }
        Some(match admitted {
            Ok(Admitted::Admitted { decision, .. }) => Checked {
                record: DecisionRecord::of(&decision, DecisionPoint::Guard, id, time),
                verdict: Verdict::Allow,
            },
            Ok(Admitted::Denied { decision }) => {
                let why = loaded.denial(&Stage::Call(decision.clone())).unwrap_or_default();
                Checked {
                    record: DecisionRecord::of(&decision, DecisionPoint::Guard, id, time),
                    verdict: Verdict::Deny(Box::new(verdict::denied(event, &why))),
                }
            }
            Ok(Admitted::Limited(hit)) => {
                let mut record = DecisionRecord::refusal(
                    DecisionPoint::Guard,
                    id,
                    time,
                    "LIMIT",
                    hit.message.clone(),
                );
                record.limit = Some(hit.limit.to_owned());
                let why = format!("{}; the budget is spent", hit.message);
                Checked { record, verdict: Verdict::Deny(Box::new(verdict::denied(event, &why))) }
            }
            Err(e) => {
                let message = format!("the session's counts could not be written: {e}");
                refused(event, Refusal::BudgetsUnavailable, message, now_ms)
            }
        })
    }
}
