//! The decision log (SPEC section 16): one structured JSON line per decision, the same
//! wherever it was made. Argument values and context fields stay out unless the caller
//! adds them on purpose. In Lambda the line is also a CloudWatch embedded-metric-format
//! document, counting decisions per tool, rule and outcome.

use crate::evaluate::decision::{Decision, Outcome, ReasonCode};
use crate::rule::Effect;
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::LazyLock;

/// Microseconds since `started`, to the nanosecond: a line reads `153.992`, not
/// `153.99200000000002`.
pub fn micros_since(started: std::time::Instant) -> f64 {
    (started.elapsed().as_secs_f64() * 1e9).round() / 1e3
}

/// The CloudWatch namespace of the decision metrics.
pub const METRICS_NAMESPACE: &str = "AgentRegistry/Decisions";

/// Where a decision was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DecisionPoint {
    /// A tool (or the agent) at resolution.
    Resolve,
    /// `POST /tools/{id}/authorize`.
    Authorize,
    /// The guard around a tool Lambda's handler.
    Guard,
    /// A token handed out by the token broker.
    Token,
    /// An AgentCore Gateway's interceptor Lambda (`functions/gateway-interceptor`).
    GatewayInterceptor,
    /// agentgateway's external MCP policy server (`agent-registry ext-mcp`).
    ExtMcp,
}

/// One decision as the decision log records it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionRecord {
    /// Unique id of this decision.
    pub decision_id: String,
    /// When it was made (RFC 3339).
    pub time: String,
    /// Where it was made.
    pub point: DecisionPoint,
    /// `user.userId` of the principal, when known.
    pub principal_id: Option<String>,
    /// The agent, when known.
    pub agent_id: Option<String>,
    /// The agent's version, when known.
    pub agent_version: Option<u64>,
    /// The tool, when the decision is about one.
    pub tool_id: Option<String>,
    /// The tool's version, when known.
    pub tool_version: Option<u64>,
    /// The function called, for call decisions.
    pub function: Option<String>,
    /// Allow or deny.
    pub effect: Effect,
    /// `allow`, `deny`, `would-deny` or `would-allow`.
    pub outcome: Outcome,
    /// Why: the reason code, or what refused before any rule (`NO_SIGNED_CONTEXT`...).
    pub reason: String,
    /// Which check of a call's decision decided (`lifecycle`, `access`, `limit`,
    /// `call`), for call decisions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<&'static str>,
    /// The id of the deciding rule, when one decided.
    pub rule_id: Option<String>,
    /// The log-only rule that would have decided otherwise, when one would have.
    pub would_be_rule_id: Option<String>,
    /// Ids of the log-only rules that matched.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub log_only_matched: Vec<String>,
    /// The session limit or rate that refused the call, when one did.
    pub limit: Option<String>,
    /// The Bedrock session of the call, when known.
    pub session_id: Option<String>,
    /// Evaluation time, in microseconds.
    pub eval_micros: f64,
    /// Detail for a refusal before any rule ran (never argument values).
    pub message: Option<String>,
    /// The call's arguments: only when the operator asked for them.
    pub arguments: Option<Value>,
    /// The request context: only when the operator asked for it.
    pub context: Option<Value>,
    /// For a `tools/list`: how many listed tools were kept and withheld (one line per
    /// list, not per tool).
    pub listed: Option<Listing>,
}

/// What one `tools/list` kept and withheld.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listing {
    /// Tools kept in the list.
    pub kept: u64,
    /// Tools withheld from it.
    pub withheld: u64,
    /// The withheld tools counted by reason code (`NOT_GRANTED`, `NO_MATCH`,
    /// `UNKNOWN_TOOL`...).
    pub withheld_by: std::collections::BTreeMap<String, u64>,
}

/// A decision line in CloudWatch embedded metric format: the record's fields, the
/// dimensions' values and the count, and the `_aws` metadata that declares them.
#[derive(Serialize)]
struct EmfLine<'a> {
    #[serde(flatten)]
    record: &'a DecisionRecord,
    #[serde(rename = "ToolId")]
    tool_dimension: &'a str,
    #[serde(rename = "RuleId")]
    rule_dimension: &'a str,
    #[serde(rename = "Outcome")]
    outcome_dimension: &'static str,
    #[serde(rename = "Decisions")]
    decisions: u32,
    #[serde(rename = "_aws")]
    aws: EmfMetadata,
}

/// EMF's `_aws` object.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct EmfMetadata {
    timestamp: i64,
    #[serde(rename = "CloudWatchMetrics")]
    cloud_watch_metrics: Option<&'static RawValue>,
}

/// Room for a usual decision line, so that writing one does not grow its buffer.
const EMF_LINE_CAPACITY: usize = 1024;

/// `CloudWatchMetrics`, the same in every line: written once.
static EMF_DIRECTIVES: LazyLock<Option<Box<RawValue>>> =
    LazyLock::new(|| serde_json::value::to_raw_value(&[EmfDirective]).ok());

/// The one metric directive: `Decisions` counted by tool, rule and outcome, and by
/// outcome alone, in [`METRICS_NAMESPACE`].
struct EmfDirective;

impl Serialize for EmfDirective {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        #[derive(Serialize)]
        #[serde(rename_all = "PascalCase")]
        struct Metric {
            name: &'static str,
            unit: &'static str,
        }
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("Namespace", METRICS_NAMESPACE)?;
        map.serialize_entry("Dimensions", &[&["ToolId", "RuleId", "Outcome"][..], &["Outcome"]])?;
        map.serialize_entry("Metrics", &[Metric { name: "Decisions", unit: "Count" }])?;
        map.end()
    }
}

impl DecisionRecord {
    /// A record of `decision` made at `point`; the caller fills in who and what.
    pub fn of(decision: &Decision, point: DecisionPoint, id: String, time: String) -> Self {
        let mut record = Self {
            decision_id: id,
            time,
            point,
            principal_id: None,
            agent_id: None,
            agent_version: None,
            tool_id: None,
            tool_version: None,
            function: None,
            effect: decision.effect,
            outcome: decision.outcome(),
            reason: String::new(),
            stage: None,
            rule_id: None,
            would_be_rule_id: None,
            log_only_matched: Vec::new(),
            limit: None,
            session_id: None,
            eval_micros: 0.0,
            message: None,
            arguments: None,
            context: None,
            listed: None,
        };
        record.set_decision(decision);
        record
    }

    /// Sets what `decision` says (effect, outcome, reason, rule ids), keeping who and
    /// what it is about.
    pub fn set_decision(&mut self, decision: &Decision) {
        self.effect = decision.effect;
        self.outcome = decision.outcome();
        self.reason.clear();
        self.reason.push_str(decision.reason.as_str());
        self.rule_id = decision.rule_id.as_deref().map(str::to_owned);
        self.would_be_rule_id =
            decision.would_be.as_ref().and_then(|w| w.rule_id.as_deref().map(str::to_owned));
        self.log_only_matched.clear();
        self.log_only_matched.extend(
            decision
                .log_only
                .iter()
                .filter(|o| o.result == crate::RuleResult::Matched)
                .filter_map(|o| o.rule_id.as_deref().map(str::to_owned)),
        );
    }

    /// A refusal made before any rule ran (no valid signed context, no rules loadable).
    pub fn refusal(
        point: DecisionPoint,
        id: String,
        time: String,
        reason: &str,
        message: String,
    ) -> Self {
        let decision = Decision::new(Effect::Deny, ReasonCode::NoMatch);
        Self {
            reason: reason.to_owned(),
            message: Some(message),
            ..Self::of(&decision, point, id, time)
        }
    }

    /// Appends the record to `out` as one JSON line, newline included.
    pub fn write_line(&self, out: &mut Vec<u8>) {
        if serde_json::to_writer(&mut *out, self).is_ok() {
            out.push(b'\n');
        }
    }

    /// The record as one CloudWatch embedded-metric-format line: the same fields, plus
    /// a `Decisions` count with the dimensions `ToolId`, `RuleId` and `Outcome` (and
    /// `Outcome` alone), at `timestamp_ms`.
    pub fn to_emf_line(&self, timestamp_ms: i64) -> String {
        let mut line = Vec::with_capacity(EMF_LINE_CAPACITY);
        match serde_json::to_writer(&mut line, &self.emf(timestamp_ms)) {
            Ok(()) => String::from_utf8(line).unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    /// Appends the record to `out` as one EMF line ([`DecisionRecord::to_emf_line`]),
    /// newline included.
    pub fn write_emf_line(&self, timestamp_ms: i64, out: &mut Vec<u8>) {
        if serde_json::to_writer(&mut *out, &self.emf(timestamp_ms)).is_ok() {
            out.push(b'\n');
        }
    }

    fn emf(&self, timestamp_ms: i64) -> EmfLine<'_> {
        let rule = self.limit.as_deref().or(self.rule_id.as_deref());
        EmfLine {
            record: self,
            tool_dimension: self.tool_id.as_deref().unwrap_or("-"),
            rule_dimension: rule.or(self.would_be_rule_id.as_deref()).unwrap_or("-"),
            outcome_dimension: self.outcome.as_str(),
            decisions: 1,
            aws: EmfMetadata {
                timestamp: timestamp_ms,
                cloud_watch_metrics: EMF_DIRECTIVES.as_deref(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_emf_line_is_the_record_plus_the_metric_directive() {
        let decision = Decision::new(Effect::Deny, ReasonCode::RuleMatch);
        let mut record =
            DecisionRecord::of(&decision, DecisionPoint::Guard, "d-1".into(), "t".into());
        record.tool_id = Some("refund".into());
        record.rule_id = Some("cap-refunds".into());
        let line: Value = serde_json::from_str(&record.to_emf_line(1_700_000_000_000)).unwrap();
        let mut expected = serde_json::to_value(&record).unwrap();
        let extra = json!({
            "ToolId": "refund", "RuleId": "cap-refunds", "Outcome": "deny", "Decisions": 1,
            "_aws": {
                "Timestamp": 1_700_000_000_000_i64,
                "CloudWatchMetrics": [{
                    "Namespace": "AgentRegistry/Decisions",
                    "Dimensions": [["ToolId", "RuleId", "Outcome"], ["Outcome"]],
                    "Metrics": [{"Name": "Decisions", "Unit": "Count"}]
                }]
            }
        });
        expected.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        assert_eq!(line, expected);

        record.tool_id = None;
        record.rule_id = None;
        record.limit = Some("maxToolCalls".into());
        let line: Value = serde_json::from_str(&record.to_emf_line(0)).unwrap();
        assert_eq!((&line["ToolId"], &line["RuleId"]), (&json!("-"), &json!("maxToolCalls")));
    }
}
