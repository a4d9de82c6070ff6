//! Admitting a call against the budgets of its session and the rate of its principal
//! (SPEC section 19): read the counters, decide on them, and write the new counts on
//! the versions read, all or nothing; a lost race reads again and decides again. A
//! refused call writes nothing.

use registry_core::SessionView;

use registry_core::session::{LimitHit, RateWindow, SessionState};
use registry_core::{AgentDefinition, AgentLimits, Decision, RateKey, RateLimit, ToolDefinition};
use serde_json::{Map, Value};

use registry_store::{Counter, Store, StoreError};

/// How long a session's counts are kept after its last call when the agent does not
/// say (Bedrock's default idle session time-out is 600 seconds; an hour covers it).
pub const DEFAULT_SESSION_TTL_SECONDS: i64 = 3_600;

/// How long the counts of a session of `agent` are kept after its last call: the
/// agent's idle session time-out, at least [`DEFAULT_SESSION_TTL_SECONDS`].
pub fn session_ttl_seconds(agent: Option<&AgentDefinition>) -> i64 {
    agent
        .and_then(|a| a.bedrock.idle_session_ttl_in_seconds)
        .map_or(DEFAULT_SESSION_TTL_SECONDS, |s| i64::from(s).max(DEFAULT_SESSION_TTL_SECONDS))
}

/// The rate limit of `tool` with the key of the window a call by `user_id` of
/// `account_id` counts in (`-` for a missing one); `None` when the tool has no rate.
pub fn rate_of<'a>(
    tool: &'a ToolDefinition,
    user_id: Option<&str>,
    account_id: Option<&str>,
) -> Option<(String, &'a RateLimit)> {
    let rate = tool.rate_limit.as_ref()?;
    let who = match rate.key {
        RateKey::Principal => user_id,
        RateKey::Account => account_id,
    };
    Some((registry_store::rate_key(&tool.tool_id, rate.key.as_str(), who.unwrap_or("-")), rate))
}

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

/// Most bytes of keys and values a [`Known`] keeps; when full, the counters least worth
/// keeping make room (ids are bounded, so this is some tens of thousands of sessions).
const MAX_KNOWN_BYTES: usize = 8 << 20;

/// The counters this process wrote last, by key: an admission first decides on them and
/// writes on their versions (one store round trip), and reads the store only when that
/// write loses (another process counted meanwhile) or nothing is known. Bounded in
/// bytes, not entries: what one session keeps grows with its keys and totals.
pub struct Known {
    counters: quick_cache::sync::Cache<String, Counter, Weight>,
}

impl Default for Known {
    fn default() -> Self {
        let bytes = MAX_KNOWN_BYTES as u64;
        Self {
            counters: quick_cache::sync::Cache::with_weighter(MAX_KNOWN_BYTES / 128, bytes, Weight),
        }
    }
}

impl std::fmt::Debug for Known {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Known").field("bytes", &self.bytes()).finish()
    }
}

/// About how many bytes a counter takes when kept.
#[derive(Clone, Copy)]
struct Weight;

impl quick_cache::Weighter<String, Counter> for Weight {
    fn weight(&self, _key: &String, counter: &Counter) -> u64 {
        (counter.key.len() * 2 + counter.value.to_string().len() + 64) as u64
    }
}

impl Known {
    fn get(&self, keys: &[String]) -> Option<Vec<Option<Counter>>> {
        keys.iter().map(|k| self.counters.get(k).map(Some)).collect()
    }

    fn remember(&self, written: Vec<Counter>) {
        for counter in written {
            self.counters.insert(counter.key.clone(), counter);
        }
    }

    fn forget(&self, keys: &[String]) {
        for key in keys {
            self.counters.remove(key);
        }
    }

    /// Bytes kept now, as `MAX_KNOWN_BYTES` bounds them.
    pub fn bytes(&self) -> usize {
        usize::try_from(self.counters.weight()).unwrap_or(usize::MAX)
    }
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

/// The version and state of a counter record (`None`: a fresh one). A record that does
/// not decode, or a session whose totals are out of range, is an error that refuses the
/// call: it is never taken for a fresh session (fail closed).
fn decode<T: serde::de::DeserializeOwned + Default>(
    counter: Option<&Counter>,
) -> Result<(u64, T), StoreError> {
    match counter {
        Some(c) => match serde_json::from_value(c.value.clone()) {
            Ok(state) => Ok((c.version, state)),
            Err(e) => Err(StoreError::Backend(format!(
                "counter record `{}` at version {} does not decode: {e}",
                c.key, c.version
            ))),
        },
        None => Ok((0, T::default())),
    }
}

/// `state` as a counter record's value; `Err` when it has no JSON form.
fn encode<T: serde::Serialize>(key: &str, state: &T) -> Result<Value, StoreError> {
    serde_json::to_value(state)
        .map_err(|e| StoreError::Backend(format!("counter record `{key}` does not encode: {e}")))
}

/// Admits one call: takes the counters (as this process last wrote them, else from the
/// store), checks the limits and the rate, lets `decide` evaluate the rules on the
/// session so far, and writes the new counts conditionally on the versions taken; a
/// conflict reads the store and starts over, at most [`ADMIT_ATTEMPTS`] times (then
/// [`StoreError::VersionMismatch`]: the caller refuses the call). A call that `decide`
/// refuses on an empty session, by a decision `on_session` says does not depend on the
/// session, is refused before any round trip. `now_ms` is the call's time (Unix
/// milliseconds).
pub async fn admit(
    store: &dyn Store,
    known: &Known,
    admission: &Admission<'_>,
    now_ms: i64,
    mut decide: impl FnMut(SessionView<'_>) -> Decision,
    on_session: impl Fn(&Decision) -> bool,
) -> Result<Verdict, StoreError> {
    let now = now_ms.div_euclid(1_000);
    let mut keys = Vec::with_capacity(2);
    keys.extend(admission.session.map(str::to_owned));
    keys.extend(admission.rate.map(|(key, _)| key.to_owned()));
    // a call the rules refuse whatever the session costs no round trip
    let first = decide(SessionView::default());
    if !first.is_allowed() && !on_session(&first) {
        return Ok(Verdict::Denied { decision: first });
    }
    let mut last = StoreError::VersionMismatch { expected: 0, current: None };
    let mut remembered = if keys.is_empty() { None } else { known.get(&keys) };
    for _ in 0..ADMIT_ATTEMPTS {
        let found = match remembered.take() {
            Some(found) => found,
            None if keys.is_empty() => Vec::new(),
            None => store.get_counters(&keys, now).await?,
        };
        // what is remembered may have expired meanwhile
        let found: Vec<Option<Counter>> =
            found.into_iter().map(|c| c.filter(|c| c.expires_at > now)).collect();
        let mut found = found.iter();
        let (session_version, session) = match admission.session {
            Some(key) => {
                let (version, session) =
                    decode::<SessionState>(found.next().and_then(Option::as_ref))?;
                if !session.totals_in_range() {
                    return Err(StoreError::Backend(format!(
                        "counter record `{key}` at version {version} has a running total out of range"
                    )));
                }
                (version, session)
            }
            None => (0, SessionState::default()),
        };
        let rate = match admission.rate {
            Some((key, limit)) => {
                Some((key, limit, decode::<RateWindow>(found.next().and_then(Option::as_ref))?))
            }
            None => None,
        };
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
        let mut next = None;
        if let Some(key) = admission.session {
            let after = match session.admit(
                admission.function,
                admission.arguments,
                admission.totals,
                now_ms,
            ) {
                Ok(after) => after,
                Err(hit) => return Ok(Verdict::Limited(hit)),
            };
            writes.push(Counter {
                key: key.to_owned(),
                version: session_version + 1,
                value: encode(key, &after)?,
                expires_at: now + admission.session_ttl_seconds.max(1),
            });
            next = Some(after);
        }
        if let Some((key, limit, (version, window))) = &rate {
            let next = window.admit(limit, now_ms);
            let ends = (next.start_ms / 1_000) + limit.per_seconds;
            writes.push(Counter {
                key: (*key).to_owned(),
                version: version + 1,
                value: encode(key, &next)?,
                expires_at: ends.max(now + 1),
            });
        }
        if writes.is_empty() {
            return Ok(Verdict::Admitted { decision, session: None });
        }
        match store.put_counters(&writes, now).await {
            Ok(()) => {
                known.remember(writes);
                return Ok(Verdict::Admitted { decision, session: next });
            }
            Err(e @ StoreError::VersionMismatch { .. }) => {
                known.forget(&keys);
                last = e;
            }
            Err(e) => {
                known.forget(&keys);
                return Err(e);
            }
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_is_remembered_is_bounded_in_bytes() {
        let known = Known::default();
        let big = "x".repeat(2_000);
        for i in 0..20_000 {
            let key = format!("session#agent#{i:0>100}");
            known.remember(vec![Counter {
                key,
                version: 1,
                value: json!({ "totals": { big.as_str(): 1.0 } }),
                expires_at: 0,
            }]);
            assert!(known.bytes() <= MAX_KNOWN_BYTES, "{} bytes after {i}", known.bytes());
        }
        let last = format!("session#agent#{:0>100}", 19_999);
        assert!(known.get(&[last]).is_some(), "the latest write is remembered");
        assert!(known.counters.len() > 1_000, "{} counters kept", known.counters.len());
    }
}
