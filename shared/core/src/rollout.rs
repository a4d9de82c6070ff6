//! Rollout policy evaluation (SPEC section 5): pure functions, no I/O.
//!
//! Steps 1-3 ([`check`]): region restrictions, beta accounts, percentage bucketing by
//! `murmur3_x86_32("<agentId>:<stickinessValue>", seed 0) % 10000`. Step 4 (tool
//! overrides) is applied by resolution through [`override_tool`].

use crate::model::{RolloutPolicy, Stickiness};
use registry_access::PreparedContext;
use serde::{Deserialize, Serialize};

/// Number of buckets: percentages have two decimals.
pub const BUCKETS: u32 = 10_000;

/// Why a caller is or is not in the rollout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RolloutReason {
    /// The agent has no rollout policy: available.
    NoPolicy,
    /// `request.region` is absent or not in `regionRestrictions`: not available.
    RegionNotAllowed,
    /// The account is in `betaAccounts`: available.
    BetaAccount,
    /// `betaAccounts` is set, the account is not in it and there is no percentage: not available.
    NotBetaAccount,
    /// The caller's bucket is below the percentage: available.
    InPercentage,
    /// The caller's bucket is at or above the percentage: not available.
    OutOfRollout,
    /// A percentage is set but the stickiness value (account or user id) is absent: not available.
    MissingStickinessValue,
    /// A policy exists but restricts nothing for this caller: available.
    Unrestricted,
}

/// The outcome of steps 1-3 of SPEC section 5 for one caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RolloutDecision {
    /// Whether the agent is available to the caller.
    pub available: bool,
    /// Why.
    pub reason: RolloutReason,
    /// The caller's bucket (0..10000), when percentage bucketing ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<u32>,
}

impl RolloutDecision {
    fn new(available: bool, reason: RolloutReason) -> Self {
        Self { available, reason, bucket: None }
    }
}

/// The bucketing key of a caller: `"<agentId>:<stickinessValue>"`.
pub fn bucket_key(agent_id: &str, stickiness_value: &str) -> String {
    format!("{agent_id}:{stickiness_value}")
}

/// `murmur3_x86_32(key, seed 0) % 10000`.
pub fn bucket(key: &str) -> u32 {
    // Reading from a byte slice cannot fail; were it to, the highest bucket keeps the
    // caller out of every rollout below 100%.
    murmur3::murmur3_32(&mut key.as_bytes(), 0).map_or(BUCKETS - 1, |h| h % BUCKETS)
}

/// Buckets below this are in at `percentage` (0..100, two decimals; clamped).
pub fn threshold(percentage: f64) -> u32 {
    if percentage.is_nan() {
        return 0;
    }
    // at most 10_000, so the cast is exact
    (percentage.clamp(0.0, 100.0) * 100.0).round() as u32
}

/// Whether `bucket` is in at `percentage`.
pub fn in_percentage(bucket: u32, percentage: f64) -> bool {
    bucket < threshold(percentage)
}

/// Applies steps 1-3 of SPEC section 5 to `agent_id`'s `policy` for the caller in `ctx`.
pub fn check(
    policy: Option<&RolloutPolicy>,
    agent_id: &str,
    ctx: &PreparedContext<'_>,
) -> RolloutDecision {
    use RolloutReason::*;
    let Some(policy) = policy else {
        return RolloutDecision::new(true, NoPolicy);
    };
    if let Some(regions) = policy.region_restrictions.as_deref().filter(|r| !r.is_empty()) {
        let listed = ctx.region().is_some_and(|region| regions.iter().any(|r| r == region));
        if !listed {
            return RolloutDecision::new(false, RegionNotAllowed);
        }
    }
    if let Some(beta) = policy.beta_accounts.as_deref().filter(|b| !b.is_empty()) {
        let account = ctx.account_id();
        if account.is_some_and(|a| beta.iter().any(|b| b == a)) {
            return RolloutDecision::new(true, BetaAccount);
        }
        if policy.percentage.is_none() {
            return RolloutDecision::new(false, NotBetaAccount);
        }
    }
    let Some(percentage) = policy.percentage else {
        return RolloutDecision::new(true, Unrestricted);
    };
    let value = match policy.stickiness.unwrap_or_default() {
        Stickiness::AccountId => ctx.account_id(),
        Stickiness::UserId => ctx.user_id(),
    };
    let Some(value) = value else {
        return RolloutDecision::new(false, MissingStickinessValue);
    };
    let b = bucket(&bucket_key(agent_id, value));
    let available = in_percentage(b, percentage);
    RolloutDecision {
        available,
        reason: if available { InPercentage } else { OutOfRollout },
        bucket: Some(b),
    }
}

/// Step 4: the tool id `tool_id` is replaced by, per the policy's `toolOverrides`.
pub fn override_tool<'a>(policy: Option<&'a RolloutPolicy>, tool_id: &'a str) -> &'a str {
    policy
        .and_then(|p| p.tool_overrides.as_ref())
        .and_then(|o| o.get(tool_id))
        .map_or(tool_id, String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use registry_access::RequestContext;

    /// [`super::check`] for a typed context.
    fn check(
        policy: Option<&RolloutPolicy>,
        agent_id: &str,
        ctx: &RequestContext,
    ) -> RolloutDecision {
        super::check(policy, agent_id, &PreparedContext::new(ctx).unwrap())
    }

    /// MurmurHash3 x86_32 written from the reference algorithm, to check the crate.
    fn reference_murmur3(data: &[u8], seed: u32) -> u32 {
        let (c1, c2) = (0xcc9e_2d51_u32, 0x1b87_3593_u32);
        let mut h = seed;
        let chunks = data.chunks_exact(4);
        let tail = chunks.remainder();
        for chunk in chunks {
            let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            k = k.wrapping_mul(c1).rotate_left(15).wrapping_mul(c2);
            h ^= k;
            h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
        }
        let mut k = 0u32;
        for (i, b) in tail.iter().enumerate() {
            k |= u32::from(*b) << (8 * i);
        }
        if !tail.is_empty() {
            h ^= k.wrapping_mul(c1).rotate_left(15).wrapping_mul(c2);
        }
        h ^= data.len() as u32;
        h ^= h >> 16;
        h = h.wrapping_mul(0x85eb_ca6b);
        h ^= h >> 13;
        h = h.wrapping_mul(0xc2b2_ae35);
        h ^ (h >> 16)
    }

    /// The vectors published in docs/rollout-test-vectors.md: (key, bucket).
    const VECTORS: &[(&str, u32)] = &[
        ("weather-agent:acct-456", 8998),
        ("weather-agent:acct-123", 5579),
        ("weather-agent:user-42", 1573),
        ("weather-agent:", 6205),
        ("support-agent:acct-456", 9629),
        ("support-agent:acct-789", 8329),
        ("billing-agent:org-7", 3330),
        ("agent-é:acct-ü", 8901),
        ("a:b", 2131),
        ("x", 9643),
    ];

    #[test]
    fn known_murmur3_values() {
        // published MurmurHash3_x86_32 values, seed 0
        assert_eq!(reference_murmur3(b"", 0), 0);
        assert_eq!(reference_murmur3(b"hello", 0), 0x248b_fa47);
        assert_eq!(
            reference_murmur3(b"The quick brown fox jumps over the lazy dog", 0),
            0x2e4f_f723
        );
        for key in ["", "hello", "a:b", "weather-agent:acct-456", "agent-é:acct-ü"] {
            assert_eq!(
                murmur3::murmur3_32(&mut key.as_bytes(), 0).unwrap(),
                reference_murmur3(key.as_bytes(), 0),
                "{key}"
            );
        }
    }

    #[test]
    fn published_vectors_hold_and_match_the_doc() {
        let doc = include_str!("../../../docs/rollout-test-vectors.md");
        for (key, expected) in VECTORS {
            assert_eq!(bucket(key), *expected, "{key}");
            assert_eq!(reference_murmur3(key.as_bytes(), 0) % BUCKETS, *expected, "{key}");
            let row = format!("| `{key}` | {expected} |");
            assert!(doc.contains(&row), "doc lacks row {row}");
        }
    }

    #[test]
    fn buckets_are_uniform_per_decile() {
        let mut deciles = [0u32; 10];
        for i in 0..100_000 {
            deciles[(bucket(&bucket_key("uniformity-agent", &format!("acct-{i}"))) / 1_000)
                as usize] += 1;
        }
        for (d, n) in deciles.iter().enumerate() {
            // 10% of the keys each, within one percentage point
            assert!((9_000..=11_000).contains(n), "decile {d}: {n} of 100000 ({deciles:?})");
        }
    }

    #[test]
    fn thresholds() {
        assert_eq!(threshold(0.0), 0);
        assert_eq!(threshold(12.34), 1_234);
        assert_eq!(threshold(100.0), 10_000);
        assert_eq!(threshold(150.0), 10_000);
        assert_eq!(threshold(-1.0), 0);
        assert_eq!(threshold(f64::NAN), 0);
        assert!(in_percentage(9_999, 100.0));
        assert!(!in_percentage(0, 0.0));
        assert!(in_percentage(1_233, 12.34) && !in_percentage(1_234, 12.34));
    }

    proptest! {
        #[test]
        fn raising_the_percentage_never_removes_anyone(
            agent in "[a-z-]{1,20}",
            value in ".{0,30}",
            p in 0u32..=10_000,
            q in 0u32..=10_000,
        ) {
            let (low, high) = (f64::from(p.min(q)) / 100.0, f64::from(p.max(q)) / 100.0);
            let policy = |pct| RolloutPolicy { percentage: Some(pct), ..Default::default() };
            let ctx: RequestContext = serde_json::from_value(serde_json::json!({
                "account": {"accountId": value}
            })).unwrap();
            let before = check(Some(&policy(low)), &agent, &ctx);
            let after = check(Some(&policy(high)), &agent, &ctx);
            prop_assert!(!before.available || after.available, "{before:?} -> {after:?}");
            prop_assert_eq!(before.bucket, after.bucket);
        }
    }

    fn ctx(region: Option<&str>, account: Option<&str>, user: Option<&str>) -> RequestContext {
        serde_json::from_value(serde_json::json!({
            "request": {"region": region},
            "account": {"accountId": account},
            "user": {"userId": user},
        }))
        .unwrap()
    }

    #[test]
    fn policy_steps_in_order() {
        use RolloutReason::*;
        let c = ctx(Some("us-west-2"), Some("acct-456"), Some("user-42"));
        let reason = |p: &RolloutPolicy, c: &RequestContext| {
            let d = check(Some(p), "weather-agent", c);
            (d.available, d.reason)
        };
        assert_eq!(check(None, "a", &c).reason, NoPolicy);
        assert_eq!(reason(&RolloutPolicy::default(), &c), (true, Unrestricted));

        let regions = RolloutPolicy {
            region_restrictions: Some(vec!["eu-west-1".into()]),
            beta_accounts: Some(vec!["acct-456".into()]),
            ..Default::default()
        };
        // step 1 comes before beta accounts
        assert_eq!(reason(&regions, &c), (false, RegionNotAllowed));
        assert_eq!(reason(&regions, &ctx(None, Some("acct-456"), None)), (false, RegionNotAllowed));
        let eu = ctx(Some("eu-west-1"), Some("acct-456"), None);
        assert_eq!(reason(&regions, &eu), (true, BetaAccount));
        assert_eq!(
            reason(&regions, &ctx(Some("eu-west-1"), Some("acct-1"), None)),
            (false, NotBetaAccount)
        );
        let empty_regions =
            RolloutPolicy { region_restrictions: Some(vec![]), ..Default::default() };
        assert_eq!(reason(&empty_regions, &ctx(None, None, None)), (true, Unrestricted));

        // beta accounts fall through to the percentage when one is set
        let beta_pct = |pct| RolloutPolicy {
            beta_accounts: Some(vec!["acct-beta".into()]),
            percentage: Some(pct),
            ..Default::default()
        };
        assert_eq!(
            reason(&beta_pct(0.0), &ctx(None, Some("acct-beta"), None)),
            (true, BetaAccount)
        );
        assert_eq!(reason(&beta_pct(0.0), &c), (false, OutOfRollout));
        assert_eq!(reason(&beta_pct(100.0), &c), (true, InPercentage));

        // stickiness picks the key
        let by_user = RolloutPolicy {
            percentage: Some(50.0),
            stickiness: Some(Stickiness::UserId),
            ..Default::default()
        };
        let d = check(Some(&by_user), "weather-agent", &c);
        assert_eq!(d.bucket, Some(bucket("weather-agent:user-42")));
        let by_account = RolloutPolicy { percentage: Some(50.0), ..Default::default() };
        let d = check(Some(&by_account), "weather-agent", &c);
        assert_eq!(d.bucket, Some(bucket("weather-agent:acct-456")));
        assert_eq!(reason(&by_user, &ctx(None, Some("a"), None)), (false, MissingStickinessValue));
    }

    #[test]
    fn tool_overrides_map_ids() {
        let policy = RolloutPolicy {
            tool_overrides: Some([("old@1".to_string(), "new@2".to_string())].into()),
            ..Default::default()
        };
        assert_eq!(override_tool(Some(&policy), "old@1"), "new@2");
        assert_eq!(override_tool(Some(&policy), "other"), "other");
        assert_eq!(override_tool(None, "old@1"), "old@1");
    }
}
