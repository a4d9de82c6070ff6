//! Why a call could not be decided.

use registry_store::StoreError;

/// A call [`decide`](crate::decide) could not decide: the caller refuses it (fail
/// closed) and says why in its own terms (a 503, a `BUDGETS_UNAVAILABLE` refusal).
#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    /// The session's or the rate's counts could not be read or written.
    #[error("the session's counts could not be read or written: {0}")]
    Counters(StoreError),
}
