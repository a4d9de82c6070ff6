//! One timer for everything a point reads from the registry's table (the tool's
//! rules, the calling agent's limits) and for the session counts it writes there:
//! what was read is re-read once half the staleness bound old and served, when a
//! re-read fails, until it is the bound old; after a failed round trip the table is
//! left alone for a while (doubling, up to [`MAX_BACKOFF_MS`]), so that during an
//! outage one call in a while waits on the SDK's attempts, not every call. Staleness is
//! judged on the clock as it reads after the table answered (or failed to).

use std::future::poll_fn;
use std::pin::pin;
use std::sync::{Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;

use super::clock::Clock;

/// The longest one read (or one count) of the table may take before it counts as a
/// failed round trip: a table that accepts and never answers (an SDK without an
/// attempt timeout) must not hold a call. Longer than the attempts of the guard's
/// `DynamoSource`.
pub const READ_TIMEOUT: Duration = Duration::from_secs(3);

/// The first pause after a failed round trip.
pub(crate) const FIRST_BACKOFF_MS: i64 = 1_000;
/// The longest pause between attempts while the table keeps failing.
pub(crate) const MAX_BACKOFF_MS: i64 = 8_000;

/// The staleness bound and the table's outage, shared by the guard's caches.
#[derive(Debug)]
pub(crate) struct Freshness {
    max_staleness_ms: i64,
    outage: Mutex<Outage>,
}

/// Consecutive failed round trips, when the next may be tried, and the last error.
#[derive(Debug, Default)]
struct Outage {
    failures: u32,
    retry_at_ms: i64,
    error: String,
}

impl Freshness {
    /// Nothing read is served older than `max_staleness_ms`.
    pub fn new(max_staleness_ms: i64) -> Self {
        Self { max_staleness_ms, outage: Mutex::default() }
    }

    /// The bound.
    pub fn bound_ms(&self) -> i64 {
        self.max_staleness_ms
    }

    /// Whether what was read at `read_at_ms` is served at `now_ms` without a re-read.
    pub fn fresh(&self, read_at_ms: i64, now_ms: i64) -> bool {
        now_ms.saturating_sub(read_at_ms) < self.max_staleness_ms / 2
    }

    /// Whether what was read at `read_at_ms` may still decide a call at `now_ms`.
    pub fn usable(&self, read_at_ms: i64, now_ms: i64) -> bool {
        now_ms.saturating_sub(read_at_ms) < self.max_staleness_ms
    }

    /// `Err` with why not while backing off after failed round trips.
    pub fn may_try(&self, now_ms: i64) -> Result<(), BackingOff> {
        let outage = self.outage.lock().unwrap_or_else(PoisonError::into_inner);
        if outage.failures == 0 || now_ms >= outage.retry_at_ms {
            return Ok(());
        }
        Err(BackingOff {
            failures: outage.failures,
            retry_in_ms: outage.retry_at_ms - now_ms,
            error: outage.error.clone(),
        })
    }

    /// The table answered: no more backing off.
    pub fn answered(&self) {
        *self.outage.lock().unwrap_or_else(PoisonError::into_inner) = Outage::default();
    }

    /// A round trip failed with `error`, noticed at `now_ms`: back off.
    pub fn failed(&self, error: &str, now_ms: i64) {
        let mut outage = self.outage.lock().unwrap_or_else(PoisonError::into_inner);
        let pause =
            FIRST_BACKOFF_MS.saturating_mul(1_i64 << outage.failures.min(8)).min(MAX_BACKOFF_MS);
        outage.failures = outage.failures.saturating_add(1);
        outage.retry_at_ms = now_ms.saturating_add(pause);
        error.clone_into(&mut outage.error);
    }

    /// The value to serve of `cached` (read at `read_at_ms`) at `now_ms`, re-reading it
    /// with `read` when it is due and the table is not being left alone: the value, when
    /// it was read, and whether it was read just now (to be cached). `Err` says why
    /// nothing can be served: the read failed (or was not tried) and nothing usable is
    /// cached.
    pub async fn serve<T: Clone>(
        &self,
        clock: &dyn Clock,
        cached: Option<(T, i64)>,
        now_ms: i64,
        read: impl Future<Output = Result<T, Unread>>,
    ) -> Result<(T, i64, bool), Stale> {
        if let Some((value, read_at)) = &cached
            && self.fresh(*read_at, now_ms)
        {
            return Ok((value.clone(), *read_at, false));
        }
        let error = match self.may_try(now_ms) {
            Err(backing_off) => backing_off.to_string(),
            Ok(()) => match bounded(read).await {
                Ok(value) => {
                    self.answered();
                    return Ok((value, now_ms, true));
                }
                Err(Unread::Unusable(e)) => {
                    self.answered();
                    e
                }
                Err(Unread::Absent(e)) => {
                    self.answered();
                    if cached.is_none() {
                        return Err(Stale::Absent(e));
                    }
                    e
                }
                Err(Unread::Unreachable(e)) => {
                    self.failed(&e, clock.now_ms());
                    e
                }
            },
        };
        // judged on the clock as it reads now, after the table failed to answer
        let now_ms = clock.now_ms().max(now_ms);
        match cached {
            Some((value, read_at)) if self.usable(read_at, now_ms) => Ok((value, read_at, false)),
            Some((_, read_at)) => {
                Err(Stale::Expired { age_ms: now_ms.saturating_sub(read_at), error })
            }
            None => Err(Stale::Never(error)),
        }
    }
}

/// `read`, or [`Unread::Unreachable`] when it takes longer than [`READ_TIMEOUT`].
async fn bounded<T>(read: impl Future<Output = Result<T, Unread>>) -> Result<T, Unread> {
    within(read, || {
        let message =
            format!("the registry's table did not answer within {} ms", READ_TIMEOUT.as_millis());
        Err(Unread::Unreachable(message))
    })
    .await
}

/// `future`'s output, or `late()`'s when it has not finished within [`READ_TIMEOUT`]; a
/// future done at its first poll (an in-memory source, no store touched) sets no timer.
pub(crate) async fn within<T>(future: impl Future<Output = T>, late: impl FnOnce() -> T) -> T {
    let mut future = pin!(future);
    if let Poll::Ready(done) = poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))).await {
        return done;
    }
    tokio::time::timeout(READ_TIMEOUT, future).await.unwrap_or_else(|_| late())
}

/// Why the table is left alone for now: the failed round trips and the last error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the registry's table failed {failures} times in a row, next attempt in {retry_in_ms} ms; last error: {error}"
)]
pub(crate) struct BackingOff {
    failures: u32,
    retry_in_ms: i64,
    error: String,
}

/// Why a read gave nothing to serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unread {
    /// The table did not answer (or failed): back off.
    Unreachable(String),
    /// The table answered with nothing usable (rules that do not compile).
    Unusable(String),
    /// The table answered that there is no such item.
    Absent(String),
}

/// Why nothing read can be served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stale {
    /// Nothing was ever read: why.
    Never(String),
    /// Nothing was ever read: the table has no such item.
    Absent(String),
    /// What was read is `age_ms` old, past the bound; why it was not re-read.
    Expired {
        /// How old it is.
        age_ms: i64,
        /// Why it was not re-read.
        error: String,
    },
}
