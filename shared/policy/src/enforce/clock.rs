//! The guard's clock: injectable, so tests move time instead of sleeping.

/// Where the guard reads the time (token expiry, rule staleness, the decision log).
pub trait Clock: Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
}

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        chrono::Utc::now().timestamp_millis()
    }
}

/// Any `Fn() -> i64` (milliseconds since the epoch) is a clock, e.g. one reading an
/// `AtomicI64` a test moves forward.
impl<F: Fn() -> i64 + Send + Sync> Clock for F {
    fn now_ms(&self) -> i64 {
        self()
    }
}
