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

/// Sleeps before a retry after losing the event sequence number to another write: that
/// write committed, so the next attempt can come at once; 2 to 12 ms of jitter only
/// spreads the writers that lost together.
pub async fn sleep_briefly() {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    tokio::time::sleep(Duration::from_millis(2 + u64::from(nanos) % 11)).await;
}

/// Sleeps before retry `attempt` (1-based) of a loop: briefly when the last attempt lost
/// the event sequence number (`lost_sequence`), else with [`sleep`]'s backoff.
pub async fn pause(attempt: u32, lost_sequence: bool) {
    match (attempt, lost_sequence) {
        (0, _) => {}
        (_, true) => sleep_briefly().await,
        (n, false) => sleep(n - 1).await,
    }
}
