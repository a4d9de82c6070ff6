//! The state of one Bedrock session of an agent, and of a rate window, as the store
//! keeps them (SPEC section 19): what call rules read as `session.*`, what the agent's
//! limits are checked against, and how an admitted call changes them. Pure: the store
//! writes the new state conditionally on the version it was read at.

use std::collections::BTreeMap;

use registry_access::SessionView;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{AgentLimits, RateLimit};

/// Counts of one session: calls, per function, running totals, the first call's time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionState {
    /// Calls admitted.
    pub calls: u64,
    /// Calls admitted per function.
    #[serde(default)]
    pub calls_of: BTreeMap<String, u64>,
    /// Running totals by `<function>.<argument>`, of the totals rules read.
    #[serde(default)]
    pub totals: BTreeMap<String, f64>,
    /// When the first call was admitted (Unix milliseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_call_ms: Option<i64>,
}

/// Longest session id: Bedrock's `sessionId` is 2 to 100 characters.
pub const MAX_SESSION_ID: usize = 100;

/// Why `id` is not a session id as Bedrock makes them (2 to [`MAX_SESSION_ID`]
/// characters of `[0-9a-zA-Z._:-]`), in words that do not repeat it; `None` when it is.
/// Budgets count per session id: one that is not bounded could grow the counters
/// without limit.
pub fn session_id_problem(id: &str) -> Option<String> {
    let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-');
    if id.is_empty() {
        Some("must not be empty".to_owned())
    } else if !(2..=MAX_SESSION_ID).contains(&id.len()) || !id.chars().all(valid) {
        Some(format!(
            "must be a Bedrock session id: 2 to {MAX_SESSION_ID} characters from 0-9 a-z A-Z . _ : -"
        ))
    } else {
        None
    }
}

/// A limit that refuses a call, and why (one line, safe to show the model).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitHit {
    /// The limit's name (`maxToolCalls`, `maxCallsPerFunction`, `maxWallClockSeconds`,
    /// `rateLimit`, `runningTotal`).
    pub limit: &'static str,
    /// What is spent.
    pub message: String,
}

impl SessionState {
    /// What call rules see of this state at `now_ms`.
    pub fn view(&self, now_ms: i64) -> SessionView<'_> {
        SessionView {
            calls: self.calls,
            calls_of: Some(&self.calls_of),
            totals: Some(&self.totals),
            age_ms: self.first_call_ms.map_or(0, |first| now_ms.saturating_sub(first).max(0)),
        }
    }

    /// The agent limit a call of `function` at `now_ms` would break, if any.
    pub fn limit_hit(&self, limits: &AgentLimits, function: &str, now_ms: i64) -> Option<LimitHit> {
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        if let Some(max) = limits.max_tool_calls
            && self.calls >= count(max)
        {
            return Some(LimitHit {
                limit: "maxToolCalls",
                message: format!("this session has used its {max} tool calls"),
            });
        }
        if let Some(max) = limits.max_calls_per_function.as_ref().and_then(|m| m.get(function))
            && self.calls_of.get(function).copied().unwrap_or(0) >= count(*max)
        {
            return Some(LimitHit {
                limit: "maxCallsPerFunction",
                message: format!("this session has used its {max} calls of {function}"),
            });
        }
        if let (Some(max), Some(first)) = (limits.max_wall_clock_seconds, self.first_call_ms)
            && now_ms.saturating_sub(first) >= max.saturating_mul(1_000)
        {
            return Some(LimitHit {
                limit: "maxWallClockSeconds",
                message: format!("this session is past its {max} seconds"),
            });
        }
        None
    }

    /// The state after admitting a call of `function` with `arguments` at `now_ms`,
    /// adding to the running totals in `totals` (`<function>.<argument>`) that it feeds:
    /// each total sums the numeric values of that argument over the admitted calls of
    /// that function in the session (a call without it, or with a value that is no
    /// number, adds nothing). `Err` (limit `runningTotal`) when an argument or a total
    /// would reach ±[`MAX_TOTAL`]: such a call is refused, so a total is always exact
    /// for whole amounts and never infinite or NaN.
    pub fn admit(
        &self,
        function: &str,
        arguments: &Map<String, Value>,
        totals: &[String],
        now_ms: i64,
    ) -> Result<SessionState, LimitHit> {
        let mut next = self.clone();
        next.calls += 1;
        *next.calls_of.entry(function.to_owned()).or_default() += 1;
        next.first_call_ms.get_or_insert(now_ms);
        for key in totals {
            let Some((f, argument)) = key.split_once('.') else { continue };
            if f != function {
                continue;
            }
            let Some(n) = arguments.get(argument).and_then(Value::as_f64) else { continue };
            let total = next.totals.entry(key.clone()).or_default();
            let sum = *total + n;
            if !within_total(n) || !within_total(sum) {
                return Err(LimitHit {
                    limit: "runningTotal",
                    message: format!(
                        "`{argument}` would take the running total `{key}` to ±2^53 or beyond"
                    ),
                });
            }
            *total = sum;
        }
        Ok(next)
    }

    /// Whether every running total is a number a total can hold (finite, below
    /// ±[`MAX_TOTAL`]): a stored state that is not was not written by [`Self::admit`].
    pub fn totals_in_range(&self) -> bool {
        self.totals.values().all(|t| within_total(*t))
    }
}

/// What a running total, and an argument added to one, stay below in magnitude: 2^53,
/// below which an `f64` holds every integer exactly (so a sum of whole amounts is exact,
/// and one that would reach it cannot round back under it unseen).
pub const MAX_TOTAL: f64 = 9_007_199_254_740_992.0;

fn within_total(n: f64) -> bool {
    n.is_finite() && n.abs() < MAX_TOTAL
}

/// The count of one rate window.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RateWindow {
    /// When the window started (Unix milliseconds).
    pub start_ms: i64,
    /// Calls admitted in it.
    pub count: u64,
}

impl RateWindow {
    /// The window a call at `now_ms` falls in under `rate`: this one while it lasts,
    /// else a new empty one (fixed windows, aligned on multiples of the period).
    pub fn current(&self, rate: &RateLimit, now_ms: i64) -> RateWindow {
        let period = rate.per_seconds.max(1).saturating_mul(1_000);
        let start = now_ms - now_ms.rem_euclid(period);
        if self.start_ms == start { self.clone() } else { RateWindow { start_ms: start, count: 0 } }
    }

    /// Whether a call at `now_ms` is over `rate`.
    pub fn hit(&self, rate: &RateLimit, now_ms: i64) -> Option<LimitHit> {
        let window = self.current(rate, now_ms);
        (window.count >= u64::try_from(rate.calls).unwrap_or(0)).then(|| LimitHit {
            limit: "rateLimit",
            message: format!(
                "the rate of {} calls per {} seconds is spent; try again later",
                rate.calls, rate.per_seconds
            ),
        })
    }

    /// The window after admitting a call at `now_ms`.
    pub fn admit(&self, rate: &RateLimit, now_ms: i64) -> RateWindow {
        let mut window = self.current(rate, now_ms);
        window.count += 1;
        window
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn admitting_counts_and_sums_the_totals_rules_read() {
        let totals = ["refund.amount".to_string()];
        let s = SessionState::default()
            .admit("refund", &args(json!({"amount": 200, "currency": "USD"})), &totals, 1_000)
            .and_then(|s| s.admit("lookup", &args(json!({"amount": 7})), &totals, 2_000))
            .and_then(|s| s.admit("refund", &args(json!({"amount": 50.5})), &totals, 3_000))
            .expect("in range");
        assert_eq!((s.calls, s.calls_of["refund"], s.calls_of["lookup"]), (3, 2, 1));
        assert_eq!(s.totals["refund.amount"], 250.5);
        assert_eq!(s.first_call_ms, Some(1_000));
        assert_eq!(s.view(61_000).age_ms, 60_000);
    }

    #[test]
    fn limits_refuse_the_call_past_them() {
        let limits = AgentLimits {
            max_tool_calls: Some(3),
            max_calls_per_function: Some(BTreeMap::from([("refund".into(), 1)])),
            max_wall_clock_seconds: Some(60),
            ..AgentLimits::default()
        };
        let one = SessionState::default().admit("refund", &Map::new(), &[], 0).expect("admit");
        assert_eq!(one.limit_hit(&limits, "lookup", 1).map(|h| h.limit), None);
        assert_eq!(
            one.limit_hit(&limits, "refund", 1).map(|h| h.limit),
            Some("maxCallsPerFunction")
        );
        assert_eq!(
            one.limit_hit(&limits, "lookup", 60_000).map(|h| h.limit),
            Some("maxWallClockSeconds")
        );
        let three = one
            .admit("a", &Map::new(), &[], 1)
            .and_then(|s| s.admit("b", &Map::new(), &[], 2))
            .expect("admit");
        assert_eq!(three.limit_hit(&limits, "lookup", 3).map(|h| h.limit), Some("maxToolCalls"));
    }

    #[test]
    fn session_ids_are_bedrock_ones() {
        for good in ["ab", "session-1", "a.b_c:d-e", &"s".repeat(100)] {
            assert_eq!(session_id_problem(good), None, "{good}");
        }
        for bad in ["", "a", "a\nb", "a\0b", "a b", "é1", "a/b", &"s".repeat(101)] {
            assert!(session_id_problem(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn a_total_never_leaves_its_range() {
        let totals = ["refund.amount".to_string()];
        let refund = |s: &SessionState, amount: Value| {
            s.admit("refund", &args(json!({ "amount": amount })), &totals, 0)
        };
        let low = refund(&SessionState::default(), json!(-1e308));
        assert_eq!(low.map(|_| ()).map_err(|h| h.limit), Err("runningTotal"));
        let top = MAX_TOTAL - 1.0;
        let edge = refund(&SessionState::default(), json!(top)).expect("below the bound");
        assert_eq!(refund(&edge, json!(1)).map_err(|h| h.limit), Err("runningTotal"));
        assert_eq!(refund(&edge, json!(2)).map_err(|h| h.limit), Err("runningTotal"));
        let over = refund(&SessionState::default(), json!(MAX_TOTAL));
        assert_eq!(over.map_err(|h| h.limit).map(|_| ()), Err("runningTotal"));
        let back = refund(&edge, json!(-top)).expect("back to zero");
        assert_eq!(back.totals["refund.amount"], 0.0);
        let zero = refund(&SessionState::default(), json!(-0.0)).expect("-0.0 adds nothing");
        assert!(zero.totals_in_range());
        let mut stored = SessionState::default();
        stored.totals.insert("refund.amount".into(), f64::NEG_INFINITY);
        assert!(!stored.totals_in_range());
    }

    proptest::proptest! {
        /// Whatever amounts come, in whatever order: every admitted state keeps its
        /// totals in range and decodes from its JSON (no `null` total), and the calls it
        /// counts are exactly the admitted ones.
        #[test]
        fn no_amounts_break_a_session(
            amounts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL
                        | proptest::num::f64::ZERO | proptest::num::f64::NEGATIVE
                        | proptest::num::f64::POSITIVE,
                    proptest::sample::select(vec![1e308, -1e308, f64::MAX, -f64::MAX,
                        MAX_TOTAL, -MAX_TOTAL, MAX_TOTAL - 1.0, -0.0, 400.0, -10_000.0]),
                ],
                1..40,
            )
        ) {
            let totals = ["refund.amount".to_string()];
            let mut state = SessionState::default();
            let mut admitted = 0;
            for amount in amounts {
                let Some(n) = serde_json::Number::from_f64(amount) else { continue };
                let call = args(json!({ "amount": Value::Number(n) }));
                if let Ok(next) = state.admit("refund", &call, &totals, 0) {
                    admitted += 1;
                    proptest::prop_assert!(next.totals_in_range(), "{next:?}");
                    let json = serde_json::to_value(&next).expect("json");
                    let back: SessionState = serde_json::from_value(json).expect("decodes");
                    proptest::prop_assert!(back.totals_in_range(), "{back:?}");
                    proptest::prop_assert_eq!(back.calls, next.calls);
                    state = next;
                }
            }
            proptest::prop_assert_eq!(state.calls, admitted);
        }
    }

    #[test]
    fn rate_windows_are_fixed_and_reset() {
        let rate = RateLimit {
            calls: 3,
            per_seconds: 60,
            key: Default::default(),
            unknown: Default::default(),
        };
        let mut w = RateWindow::default();
        for t in [0, 10_000, 20_000] {
            assert!(w.hit(&rate, t).is_none());
            w = w.admit(&rate, t);
        }
        assert_eq!(w.hit(&rate, 59_999).map(|h| h.limit), Some("rateLimit"));
        assert!(w.hit(&rate, 60_000).is_none(), "a new window");
    }
}
