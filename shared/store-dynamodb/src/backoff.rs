//! Bounded exponential backoff with jitter for the store's own retry loops
//! (transaction conflicts, `UnprocessedKeys`), and the one retry loop of the audited
//! writes; the SDK retries single requests itself.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use registry_store::StoreError;

/// Attempts of a retry loop before giving up with `StoreError::Unavailable`.
pub const MAX_ATTEMPTS: u32 = 8;

/// Attempts of an audited write: every write takes the next event sequence number, so
/// writes to different definitions race for it too and may need a few more tries.
const AUDITED_ATTEMPTS: u32 = 3 * MAX_ATTEMPTS;

/// The retry loop of an audited write (read, plan, transact): at most
/// [`AUDITED_ATTEMPTS`] attempts, a pause before each but the first ([`pause`]), and
/// `Unavailable("<what> kept conflicting: <last reason>")` when they are spent.
///
/// ```text
/// let mut retry = Audited::new("write");
/// while retry.next().await { ...; retry.conflict(why) or retry.lost_sequence() }
/// Err(retry.gave_up())
/// ```
pub(crate) struct Audited {
    what: &'static str,
    attempt: u32,
    last: String,
    lost_sequence: bool,
}

impl Audited {
    pub(crate) fn new(what: &'static str) -> Self {
        Self { what, attempt: 0, last: String::new(), lost_sequence: false }
    }

    /// Waits before the next attempt; `false` once every attempt is spent.
    pub(crate) async fn next(&mut self) -> bool {
        if self.attempt >= AUDITED_ATTEMPTS {
            return false;
        }
        pause(self.attempt, std::mem::take(&mut self.lost_sequence)).await;
        self.attempt += 1;
        true
    }

    /// The attempt met a conflict or throttling (`why`): the next one backs off.
    pub(crate) fn conflict(&mut self, why: impl Into<String>) {
        self.last = why.into();
    }

    /// Another write took the event sequence number: the next attempt comes at once.
    pub(crate) fn lost_sequence(&mut self) {
        self.last = "another write took the event sequence number".into();
        self.lost_sequence = true;
    }

    /// The error once every attempt is spent.
    pub(crate) fn gave_up(self) -> StoreError {
        StoreError::Unavailable(format!("{} kept conflicting: {}", self.what, self.last))
    }
}

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
