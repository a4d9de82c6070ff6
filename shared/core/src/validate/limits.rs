//! Session budgets and rate limits (SPEC section 19): positive integers within bounds.

use super::common::check_unknown;
use crate::violation::Violations;
use crate::{AgentLimits, RateLimit};

/// Most of anything a limit may count: a day of seconds, a million calls.
const MAX_LIMIT: i64 = 1_000_000;

/// Limits the registry cannot enforce, and why: refused rather than stored for show.
const UNENFORCEABLE: &[(&str, &str)] = &[
    (
        "maxCostUsd",
        "the registry has no cost table for Bedrock models; bound the session with maxToolCalls, maxWallClockSeconds and maxTotalOutputTokens",
    ),
    (
        "maxContextTokens",
        "Bedrock inline agents have no setting for the context size; bound the session with maxToolCalls and maxWallClockSeconds",
    ),
    (
        "maxParallelTools",
        "Bedrock runs an agent's tool calls one at a time; there is nothing to bound",
    ),
];

fn positive(v: &mut Violations, path: &str, value: i64) {
    if !(1..=MAX_LIMIT).contains(&value) {
        v.push(path, format!("must be a positive integer, at most {MAX_LIMIT} (got {value})"));
    }
}

/// Checks an agent's `limits`.
pub fn check_limits(v: &mut Violations, limits: &AgentLimits) {
    for (field, why) in UNENFORCEABLE {
        if limits.unknown.contains_key(*field) {
            v.push(format!("/limits/{field}"), format!("not supported: {why}"));
        }
    }
    let known =
        ["maxToolCalls", "maxCallsPerFunction", "maxWallClockSeconds", "maxTotalOutputTokens"];
    let mut unknown = limits.unknown.clone();
    unknown.retain(|k, _| !UNENFORCEABLE.iter().any(|(f, _)| f == k));
    check_unknown(v, "/limits", &unknown, &known);
    if let Some(n) = limits.max_tool_calls {
        positive(v, "/limits/maxToolCalls", n);
    }
    if let Some(n) = limits.max_wall_clock_seconds {
        positive(v, "/limits/maxWallClockSeconds", n);
    }
    if let Some(n) = limits.max_total_output_tokens {
        // Bedrock's maximumLength: 0..4096
        if !(1..=4_096).contains(&n) {
            v.push(
                "/limits/maxTotalOutputTokens",
                format!("must be between 1 and 4096, Bedrock's maximumLength (got {n})"),
            );
        }
    }
    for (function, n) in limits.max_calls_per_function.iter().flatten() {
        positive(v, &crate::pointer("/limits/maxCallsPerFunction", function), *n);
    }
}

/// Checks a tool's `rateLimit`.
pub fn check_rate(v: &mut Violations, rate: &RateLimit) {
    check_unknown(v, "/rateLimit", &rate.unknown, &["calls", "perSeconds", "key"]);
    positive(v, "/rateLimit/calls", rate.calls);
    if !(1..=86_400).contains(&rate.per_seconds) {
        v.push(
            "/rateLimit/perSeconds",
            format!("must be between 1 and 86400 seconds (got {})", rate.per_seconds),
        );
    }
}
