//! The one builder of a call's decision record (SPEC section 16): the same fields
//! whichever point decided, written as a JSON line or a CloudWatch EMF line by
//! `DecisionRecord`.

use registry_access::{Decision, DecisionPoint, DecisionRecord, ReasonCode, RuleResult};

use crate::decision::CallDecision;

/// A decision's id (a UUID v7) and time (RFC 3339, milliseconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// The decision's id.
    pub id: String,
    /// When it was made.
    pub time: String,
}

impl Stamp {
    /// A new decision id, made at `now_ms` (Unix milliseconds).
    pub fn at(now_ms: i64) -> Self {
        let time = chrono::DateTime::from_timestamp_millis(now_ms)
            .unwrap_or_default()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        Self { id: uuid::Uuid::now_v7().to_string(), time }
    }
}

impl CallDecision {
    /// The decision record of this decision made at `point`: effect, outcome, reason,
    /// rule ids, the limit and the message; the caller adds who and what it is about
    /// (principal, agent, tool, function, session, timing).
    pub fn record(&self, point: DecisionPoint, stamp: Stamp) -> DecisionRecord {
        let undecided = Decision::new(self.effect, ReasonCode::NoMatch);
        let mut record = DecisionRecord::of(&undecided, point, stamp.id, stamp.time);
        record.outcome = self.outcome;
        record.reason = self.reason_code(point).to_owned();
        record.stage = Some(self.stage.as_str());
        record.rule_id.clone_from(&self.rule_id);
        record.would_be_rule_id =
            self.would_be.as_ref().and_then(|w| w.rule_id.as_deref().map(str::to_owned));
        record.log_only_matched = self
            .log_only
            .iter()
            .filter(|o| o.result == RuleResult::Matched)
            .filter_map(|o| o.rule_id.as_deref().map(str::to_owned))
            .collect();
        record.limit = self.limit.map(str::to_owned);
        record.message.clone_from(&self.message);
        record
    }
}
