//! Rollout policy validation.

use std::sync::LazyLock;

use regex::Regex;

use super::common::{check_count, check_unknown};
use crate::RolloutPolicy;
use crate::pointer;
use crate::violation::Violations;

static REGION: LazyLock<Regex> = LazyLock::new(region_pattern);

#[allow(clippy::expect_used)]
fn region_pattern() -> Regex {
    Regex::new(r"^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d{1,2}$").expect("literal pattern compiles")
}

/// Most accounts in `betaAccounts`.
pub const MAX_BETA_ACCOUNTS: usize = 1_000;

/// Most regions in `regionRestrictions`: more than AWS has regions.
pub const MAX_REGION_RESTRICTIONS: usize = 64;

/// Checks a rollout policy: account and region lists, overrides, percentage.
pub fn check_rollout(v: &mut Violations, base: &str, policy: &RolloutPolicy) {
    check_unknown(
        v,
        base,
        &policy.unknown,
        &["betaAccounts", "regionRestrictions", "toolOverrides", "percentage", "stickiness"],
    );
    let lists = [
        (
            "betaAccounts",
            policy.beta_accounts.as_ref().map_or(0, Vec::len),
            MAX_BETA_ACCOUNTS,
            "the registry's bound",
        ),
        (
            "regionRestrictions",
            policy.region_restrictions.as_ref().map_or(0, Vec::len),
            MAX_REGION_RESTRICTIONS,
            "the registry's bound, above the number of AWS regions",
        ),
        (
            "toolOverrides",
            policy.tool_overrides.as_ref().map_or(0, std::collections::BTreeMap::len),
            super::agent::MAX_TOOLS,
            "as many as an agent's tools",
        ),
    ];
    for (name, len, max, source) in lists {
        check_count(v, &pointer(base, name), len, max, source);
    }
    for (i, account) in policy.beta_accounts.iter().flatten().enumerate() {
        if account.trim().is_empty() || account.len() > 128 {
            v.push(pointer(&pointer(base, "betaAccounts"), i), "must be 1 to 128 characters");
        }
    }
    for (i, region) in policy.region_restrictions.iter().flatten().enumerate() {
        if !REGION.is_match(region) {
            v.push(
                pointer(&pointer(base, "regionRestrictions"), i),
                format!("`{region}` is not an AWS region name like us-east-1"),
            );
        }
    }
    for (old, new) in policy.tool_overrides.iter().flatten() {
        let path = pointer(&pointer(base, "toolOverrides"), old);
        let mut key = Violations::new();
        super::common::check_tool_ref(&mut key, &path, old);
        if !key.is_empty() {
            v.push(&path, format!("key `{old}` is not a valid tool id or range"));
        }
        super::common::check_tool_ref(v, &path, new);
        if old == new {
            v.push(&path, "a tool cannot override itself");
        }
    }
    if let Some(p) = policy.percentage {
        let path = pointer(base, "percentage");
        if !(0.0..=100.0).contains(&p) || !p.is_finite() {
            v.push(&path, "must be between 0 and 100");
        } else if ((p * 100.0).round() - p * 100.0).abs() > 1e-6 {
            v.push(&path, "at most two decimal places");
        }
    }
}
