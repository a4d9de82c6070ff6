//! Bounded exponential backoff with jitter for the store's own retry loops
//! (transaction conflicts, `UnprocessedKeys`); the SDK retries single requests itself.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Attempts of a retry loop before giving up with `StoreError::Unavailable`.
pub const MAX_ATTEMPTS: u32 = 8;

/// Sleeps before retry number `attempt` (0-based): 20 ms doubling up to 1 s, plus up to
/// 50% jitter so racing writers spread out.
pub async fn sleep(attempt: u32) {
    let base = 20u64.saturating_mul(1 << attempt.min(6)).min(1_000);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    let jitter = u64::from(nanos) % (base / 2 + 1);
    tokio::time::sleep(Duration::from_millis(base + jitter)).await;
}
