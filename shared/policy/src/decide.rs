//! `decide`: one call of a tool, decided in one order wherever it is enforced.

use crate::admit::{Admission, Known, Verdict, admit, rate_of, session_ttl_seconds};
use registry_access::{Decision, PreparedContext, RuleOutcome, SessionView, ToolCall};
use registry_core::resolve::{ToolAccess, ToolRules, tool_access};
use registry_core::{AgentDefinition, ToolDefinition};
use registry_store::{Store, StoreError};

use crate::decision::{AuthorizeTrace, CallDecision};
use crate::error::DecideError;
use crate::grant::Grant;
use crate::stage::{Reason, Stage};

/// The call to decide and what it is decided on.
#[derive(Debug)]
pub struct CallRequest<'a, 'c> {
    /// The tool's live definition.
    pub tool: &'a ToolDefinition,
    /// Its rules, compiled ([`ToolRules::compile`]).
    pub rules: &'a ToolRules,
    /// The principal's context, parsed once by the caller (`request.agentId` set by it;
    /// `request.toolId` is set here).
    pub context: &'a mut PreparedContext<'c>,
    /// The call, its arguments already checked against the tool's schema.
    pub call: ToolCall<'a>,
    /// What the principal's agent grants ([`grant_of`](crate::grant_of)), when the
    /// call is made for an agent; `None` only where no agent is named (an `authorize`
    /// body without `agentId`, a caller known by a gateway's claims, a runtime holding
    /// the tool itself).
    pub grant: Option<&'a Grant>,
    /// Whether to keep every rule's result ([`CallDecision::trace`]).
    pub explain: bool,
    /// The call's time (Unix milliseconds): sessions and rates count at it.
    pub now_ms: i64,
}

/// Where a point counts the calls it admits (SPEC section 19).
#[derive(Clone, Copy)]
pub struct Budget<'a> {
    /// The store of session and rate counters (the store's `get_counters` and
    /// `put_counters`, implemented by each backend).
    pub counters: &'a dyn Store,
    /// The counters this process wrote last.
    pub known: &'a Known,
    /// The call's session counter key (`registry_store::session_key`) and its agent
    /// (whose `limits` apply), when the call belongs to a session.
    pub session: Option<(&'a str, Option<&'a AgentDefinition>)>,
}

impl std::fmt::Debug for Budget<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budget").field("session", &self.session.map(|(k, _)| k)).finish()
    }
}

/// How the point deciding a call counts it.
#[derive(Debug, Clone)]
pub enum Counting<'a> {
    /// Nothing counts this call: the call rules see an empty session. Only for a call
    /// nothing needs to count ([`counts_calls`] is false), or one a caller sent without
    /// a session to a point that counts rates only ([`Counting::In`] then covers it).
    Uncounted,
    /// The call counts in `budget`: the agent's session limits when it belongs to a
    /// session, and the tool's rate limit for the principal.
    In(Budget<'a>),
    /// The call needs counting and this point cannot count it (no session store, no
    /// valid session id, counts unreadable): refused at stage `limit`, never decided
    /// as if nothing counted.
    Refused {
        /// `BudgetsUnavailable` or `InvalidSession`.
        reason: Reason,
        /// What went wrong, for the decision log.
        message: String,
    },
}

/// Whether calls of `tool` (by `agent`, when known) need counting: the agent has
/// session limits, the tool a rate limit, or its call rules read `session`.
pub fn counts_calls(
    tool: &ToolDefinition,
    rules: &ToolRules,
    agent: Option<&AgentDefinition>,
) -> bool {
    agent.is_some_and(|a| a.limits.is_some())
        || tool.rate_limit.is_some()
        || rules.call.reads_session()
}

/// The first three stages of [`decide`] (the tool's lifecycle, the agent's grant, the
/// tool's access rules for the principal of `context`) as a decision: what a point that
/// lists tools (a gateway's `tools/list`) keeps a tool by.
pub fn decide_access(
    tool: &ToolDefinition,
    rules: &ToolRules,
    context: &mut PreparedContext<'_>,
    grant: Option<&Grant>,
) -> CallDecision {
    match tool_access(tool, rules, context, false).0 {
        ToolAccess::SwitchedOff(status) => {
            CallDecision::refused(Stage::Lifecycle, Reason::SwitchedOff(status), None)
        }
        ToolAccess::Decided(decision) => {
            not_granted(grant).unwrap_or_else(|| CallDecision::of_rules(Stage::Access, &decision))
        }
    }
}

/// The refusal of a call whose agent does not grant the tool, when it does not.
fn not_granted(grant: Option<&Grant>) -> Option<CallDecision> {
    match grant {
        Some(Grant::NotGranted(why)) => {
            Some(CallDecision::refused(Stage::Grant, Reason::NotGranted, Some(why.clone())))
        }
        Some(Grant::Granted) | None => None,
    }
}

/// Decides one call: the tool's lifecycle, the agent's grant, its access rules for the principal, the
/// session's budgets and the tool's rate, the call rules (on the session so far), and
/// the log-only rules reached on the way (in the deciding stage's outcome). One
/// exception to the order keeps refusals cheap: a call the call rules deny whatever
/// the session holds is denied (stage `call`) before any counter is read.
/// `Err` only when the counters could not be read or written.
pub async fn decide(
    request: CallRequest<'_, '_>,
    counting: Counting<'_>,
) -> Result<CallDecision, DecideError> {
    let CallRequest { tool, rules, context, call, grant, explain, now_ms } = request;
    let (access, access_rules) = tool_access(tool, rules, context, explain);
    let access = match access {
        ToolAccess::SwitchedOff(status) => {
            return Ok(CallDecision::refused(Stage::Lifecycle, Reason::SwitchedOff(status), None));
        }
        ToolAccess::Decided(decision) => decision,
    };
    if let Some(refused) = not_granted(grant) {
        return Ok(refused);
    }
    let trace = |call: Option<&Decision>, call_rules: Vec<RuleOutcome>| {
        explain.then(|| AuthorizeTrace {
            access: access.clone(),
            access_rules: access_rules.clone(),
            call: call.cloned(),
            call_rules,
        })
    };
    if !access.is_allowed() {
        return Ok(CallDecision {
            trace: trace(None, Vec::new()),
            ..CallDecision::of_rules(Stage::Access, &access)
        });
    }
    let context: &PreparedContext<'_> = context;
    let set = &rules.call;
    let mut explained = Vec::new();
    let mut evaluate = |session: SessionView<'_>| {
        if explain {
            let (decision, outcomes) = set.explain_call_in(context, &call, session);
            explained = outcomes;
            decision
        } else {
            set.evaluate_call_in(context, &call, session)
        }
    };
    let limited = |limit: &'static str, message: String| CallDecision {
        limit: Some(limit),
        ..CallDecision::refused(Stage::Limit, Reason::Limit, Some(message))
    };
    let (decided, session) = match counting {
        Counting::Refused { reason, message } => {
            let refused = CallDecision::refused(Stage::Limit, reason, Some(message));
            return Ok(CallDecision { trace: trace(None, Vec::new()), ..refused });
        }
        Counting::Uncounted => (evaluate(SessionView::default()), None),
        Counting::In(budget) => {
            let rate = rate_of(tool, context.user_id(), context.account_id());
            if budget.session.is_none() && rate.is_none() {
                (evaluate(SessionView::default()), None)
            } else {
                let agent = budget.session.and_then(|(_, agent)| agent);
                let admission = Admission {
                    session: budget.session.map(|(key, _)| key),
                    limits: agent.and_then(|a| a.limits.as_ref()),
                    rate: rate.as_ref().map(|(key, rate)| (key.as_str(), *rate)),
                    function: call.function,
                    arguments: call.arguments,
                    totals: set.session_totals(),
                    session_ttl_seconds: session_ttl_seconds(agent),
                };
                let on_session = |d: &Decision| set.decided_on_session(d);
                let admitted = admit(
                    budget.counters,
                    budget.known,
                    &admission,
                    now_ms,
                    &mut evaluate,
                    on_session,
                )
                .await;
                match admitted {
                    Ok(Verdict::Admitted { decision, session }) => (decision, session),
                    Ok(Verdict::Denied { decision }) => (decision, None),
                    Ok(Verdict::Limited(hit)) => {
                        let refused = limited(hit.limit, hit.message);
                        return Ok(CallDecision { trace: trace(None, Vec::new()), ..refused });
                    }
                    Err(StoreError::VersionMismatch { .. }) => {
                        let refused =
                            limited("contention", "the session is busy; try the call again".into());
                        return Ok(CallDecision { trace: trace(None, Vec::new()), ..refused });
                    }
                    Err(e) => return Err(DecideError::Counters(e)),
                }
            }
        }
    };
    Ok(CallDecision {
        session,
        trace: trace(Some(&decided), explained),
        ..CallDecision::of_rules(Stage::Call, &decided)
    })
}
