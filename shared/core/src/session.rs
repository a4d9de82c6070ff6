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

/// A limit that refuses a call, and why (one line, safe to show the model).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitHit {
    /// The limit's name (`maxToolCalls`, `maxCallsPerFunction`, `maxWallClockSeconds`,
    /// `rateLimit`).
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
    /// adding to the running totals in `totals` (`<function>.<argument>`) that it feeds.
    pub fn admit(
        &self,
        function: &str,
        arguments: &Map<String, Value>,
        totals: &[String],
        now_ms: i64,
    ) -> SessionState {
        let mut next = self.clone();
        next.calls += 1;
        *next.calls_of.entry(function.to_owned()).or_default() += 1;
        next.first_call_ms.get_or_insert(now_ms);
        for key in totals {
            let Some((f, argument)) = key.split_once('.') else { continue };
            if f != function {
                continue;
            }
            if let Some(n) = arguments.get(argument).and_then(Value::as_f64) {
                *next.totals.entry(key.clone()).or_default() += n;
            }
        }
        next
    }
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
            .admit("lookup", &args(json!({"amount": 7})), &totals, 2_000)
            .admit("refund", &args(json!({"amount": 50.5})), &totals, 3_000);
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
        let one = SessionState::default().admit("refund", &Map::new(), &[], 0);
        assert_eq!(one.limit_hit(&limits, "lookup", 1).map(|h| h.limit), None);
        assert_eq!(
            one.limit_hit(&limits, "refund", 1).map(|h| h.limit),
            Some("maxCallsPerFunction")
        );
        assert_eq!(
            one.limit_hit(&limits, "lookup", 60_000).map(|h| h.limit),
            Some("maxWallClockSeconds")
        );
        let three = one.admit("a", &Map::new(), &[], 1).admit("b", &Map::new(), &[], 2);
        assert_eq!(three.limit_hit(&limits, "lookup", 3).map(|h| h.limit), Some("maxToolCalls"));
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
