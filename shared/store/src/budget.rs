//! Admitting a call against the budgets of its session and the rate of its principal
//! (SPEC section 19): read the counters, decide on them, and write the new counts on
//! the versions read, all or nothing; a lost race reads again and decides again. A
//! refused call writes nothing.

use registry_core::SessionView;
use registry_core::session::{LimitHit, RateWindow, SessionState};
use registry_core::{AgentLimits, Decision, RateLimit};
use serde_json::{Map, Value};

use crate::{Counter, Store, StoreError};

/// Attempts at an admission before it gives up on a contended counter.
pub const ADMIT_ATTEMPTS: usize = 8;

/// What admitting one call involves.
#[derive(Debug, Clone, Copy)]
pub struct Admission<'a> {
    /// The session's counter key, when the call belongs to a session.
    pub session: Option<&'a str>,
    /// The agent's limits, when it has any.
    pub limits: Option<&'a AgentLimits>,
    /// The rate window's counter key and the tool's rate limit, when it has one.
    pub rate: Option<(&'a str, &'a RateLimit)>,
    /// The function called.
    pub function: &'a str,
    /// The call's arguments (for the running totals).
    pub arguments: &'a Map<String, Value>,
    /// The running totals the tool's rules read (`<function>.<argument>`).
    pub totals: &'a [String],
    /// How long the session's state is kept after its last call, in seconds.
    pub session_ttl_seconds: i64,
}

/// How an admission ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The rules allowed, within the limits: the counts were written.
    Admitted {
        /// The rules' decision.
        decision: Decision,
        /// The session's state after the call (`None` without a session).
        session: Option<SessionState>,
    },
    /// The rules denied: nothing was written.
    Denied {
        /// The rules' decision.
        decision: Decision,
    },
    /// A limit or the rate was spent: nothing was written.
    Limited(LimitHit),
}

fn decode<T: serde::de::DeserializeOwned + Default>(counter: Option<&Counter>) -> (u64, T) {
    match counter {
        Some(c) => (c.version, serde_json::from_value(c.value.clone()).unwrap_or_default()),
        None => (0, T::default()),
    }
}

/// Admits one call: reads the counters, checks the limits and the rate, lets `decide`
/// evaluate the rules on the session so far, and writes the new counts conditionally
/// on the versions read; a conflict starts over, at most [`ADMIT_ATTEMPTS`] times
/// (then [`StoreError::VersionMismatch`]: the caller refuses the call). `now_ms` is the
/// call's time (Unix milliseconds).
pub async fn admit(
    store: &dyn Store,
    admission: &Admission<'_>,
    now_ms: i64,
    mut decide: impl FnMut(SessionView<'_>) -> Decision,
) -> Result<Verdict, StoreError> {
    let now = now_ms.div_euclid(1_000);
    let mut keys = Vec::with_capacity(2);
    keys.extend(admission.session.map(str::to_owned));
    keys.extend(admission.rate.map(|(key, _)| key.to_owned()));
    let mut last = StoreError::VersionMismatch { expected: 0, current: None };
    for _ in 0..ADMIT_ATTEMPTS {
        let found =
            if keys.is_empty() { Vec::new() } else { store.get_counters(&keys, now).await? };
        let mut found = found.iter();
        let (session_version, session) = match admission.session {
            Some(_) => decode::<SessionState>(found.next().and_then(Option::as_ref)),
            None => (0, SessionState::default()),
        };
        let rate = admission.rate.map(|(key, limit)| {
            (key, limit, decode::<RateWindow>(found.next().and_then(Option::as_ref)))
        });
        if let Some(hit) =
            admission.limits.and_then(|l| session.limit_hit(l, admission.function, now_ms))
        {
            return Ok(Verdict::Limited(hit));
        }
        if let Some(hit) =
            rate.as_ref().and_then(|(_, limit, (_, window))| window.hit(limit, now_ms))
        {
            return Ok(Verdict::Limited(hit));
        }
        let decision = decide(session.view(now_ms));
        if !decision.is_allowed() {
            return Ok(Verdict::Denied { decision });
        }
        let mut writes = Vec::with_capacity(2);
        let next = admission.session.map(|key| {
            let next =
                session.admit(admission.function, admission.arguments, admission.totals, now_ms);
            writes.push(Counter {
                key: key.to_owned(),
                version: session_version + 1,
                value: serde_json::to_value(&next).unwrap_or_default(),
                expires_at: now + admission.session_ttl_seconds.max(1),
            });
            next
        });
        if let Some((key, limit, (version, window))) = &rate {
            let next = window.admit(limit, now_ms);
            let ends = (next.start_ms / 1_000) + limit.per_seconds;
            writes.push(Counter {
                key: (*key).to_owned(),
                version: version + 1,
                value: serde_json::to_value(&next).unwrap_or_default(),
                expires_at: ends.max(now + 1),
            });
        }
        if writes.is_empty() {
            return Ok(Verdict::Admitted { decision, session: None });
        }
        match store.put_counters(&writes, now).await {
            Ok(()) => return Ok(Verdict::Admitted { decision, session: next }),
            Err(e @ StoreError::VersionMismatch { .. }) => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}
