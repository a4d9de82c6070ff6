//! Which stored version a write applies to, and which lost races it retries.
//!
//! A write naming a version is tried once: the store checks the version atomically.
//! A write that follows whatever is current (`If-Match: *`, or a PUT without
//! `If-Match`) re-reads the head and tries again when another writer got there first,
//! at most [`WRITE_ATTEMPTS`] times in all; this is the only retry of the write path.

use registry_core::Kind;

use crate::ServiceError;

/// Attempts of a write that follows the current version, in all.
pub const WRITE_ATTEMPTS: usize = 8;

/// Which stored version a write applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precondition {
    /// Exactly this version (`If-Match: "3"`, or `version` in a patch body).
    Version(u64),
    /// Whatever version is current; the definition must exist (`If-Match: *`).
    Current,
    /// Whatever is stored, or nothing (a PUT without `If-Match`: create or replace).
    Unconditional,
}

impl From<Option<u64>> for Precondition {
    fn from(expected: Option<u64>) -> Self {
        expected.map_or(Self::Unconditional, Self::Version)
    }
}

impl From<u64> for Precondition {
    fn from(expected: u64) -> Self {
        Self::Version(expected)
    }
}

impl Precondition {
    /// Whether a create or replace of `kind` `id` may go ahead over a head at version
    /// `head` (`None`: nothing live).
    pub(crate) fn check(self, kind: Kind, id: &str, head: Option<u64>) -> Result<(), ServiceError> {
        match (self, head) {
            (Self::Version(expected), current) if current != Some(expected) => {
                Err(ServiceError::VersionMismatch { expected, current })
            }
            (Self::Current, None) => Err(ServiceError::NotFound { kind, id: id.to_owned() }),
            _ => Ok(()),
        }
    }

    /// Whether `error` is a lost race that this write tries again.
    fn retries(self, error: &ServiceError) -> bool {
        match self {
            Self::Version(_) => false,
            Self::Current => matches!(error, ServiceError::VersionMismatch { .. }),
            Self::Unconditional => matches!(
                error,
                ServiceError::VersionMismatch { .. } | ServiceError::AlreadyExists { .. }
            ),
        }
    }

    /// The error when every attempt lost: an unconditional write reports the
    /// contention, a write that named a version (or `*`) the last mismatch.
    fn exhausted(self, last: ServiceError) -> ServiceError {
        match self {
            Self::Unconditional => ServiceError::Contention,
            Self::Version(_) | Self::Current => last,
        }
    }

    /// Runs `attempt` until it succeeds, fails other than by a lost race this write
    /// retries, or [`WRITE_ATTEMPTS`] attempts have lost.
    pub(crate) async fn retry<T, F>(self, mut attempt: impl FnMut() -> F) -> Result<T, ServiceError>
    where
        F: Future<Output = Result<T, ServiceError>>,
    {
        let mut last = ServiceError::Contention;
        for _ in 0..WRITE_ATTEMPTS {
            match attempt().await {
                Err(e) if self.retries(&e) => last = e,
                other => return other,
            }
        }
        Err(self.exhausted(last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many attempts `precondition` makes when every attempt fails with `error`,
    /// and what it answers.
    fn attempts(precondition: Precondition, error: &ServiceError) -> (usize, ServiceError) {
        let mut made = 0;
        let answer = block_on(precondition.retry(|| {
            made += 1;
            let error = error.clone();
            async move { Err::<(), _>(error) }
        }));
        (made, answer.unwrap_err())
    }

    fn block_on<T>(future: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
    }

    #[test]
    fn a_write_following_the_current_version_tries_at_most_eight_times() {
        let mismatch = ServiceError::VersionMismatch { expected: 1, current: Some(2) };
        assert_eq!(WRITE_ATTEMPTS, 8);
        assert_eq!(
            attempts(Precondition::Unconditional, &mismatch),
            (WRITE_ATTEMPTS, ServiceError::Contention)
        );
        assert_eq!(attempts(Precondition::Current, &mismatch), (WRITE_ATTEMPTS, mismatch.clone()));
        let exists = ServiceError::AlreadyExists { kind: Kind::Tool, id: "t".into(), current: 1 };
        assert_eq!(attempts(Precondition::Unconditional, &exists).0, WRITE_ATTEMPTS);
        assert_eq!(attempts(Precondition::Current, &exists), (1, exists));
    }

    #[test]
    fn a_write_naming_a_version_and_other_errors_are_tried_once() {
        let mismatch = ServiceError::VersionMismatch { expected: 1, current: Some(2) };
        assert_eq!(attempts(Precondition::Version(1), &mismatch), (1, mismatch));
        let invalid = ServiceError::invalid("/name", "bad");
        assert_eq!(attempts(Precondition::Unconditional, &invalid), (1, invalid));
    }

    #[test]
    fn the_check_compares_the_head_with_what_was_asked() {
        let check = |p: Precondition, head| p.check(Kind::Agent, "a", head);
        assert_eq!(check(Precondition::Version(2), Some(2)), Ok(()));
        assert_eq!(
            check(Precondition::Version(2), None),
            Err(ServiceError::VersionMismatch { expected: 2, current: None })
        );
        assert_eq!(
            check(Precondition::Current, None),
            Err(ServiceError::NotFound { kind: Kind::Agent, id: "a".into() })
        );
        assert_eq!(check(Precondition::Current, Some(7)), Ok(()));
        assert_eq!(check(Precondition::Unconditional, None), Ok(()));
        assert_eq!(Precondition::from(None), Precondition::Unconditional);
        assert_eq!(Precondition::from(Some(3)), Precondition::Version(3));
    }
}
