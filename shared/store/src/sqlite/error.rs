//! Mapping SQLite failures onto [`StoreError`].

use rusqlite::ErrorCode;

use crate::StoreError;

/// Busy or locked databases are transient ([`StoreError::Unavailable`]); everything
/// else is a backend failure.
impl From<rusqlite::Error> for StoreError {
    fn from(err: rusqlite::Error) -> Self {
        match err.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
                StoreError::Unavailable(format!("sqlite: {err}"))
            }
            _ => StoreError::Backend(format!("sqlite: {err}")),
        }
    }
}

/// A stored document that no longer parses (never caused by client input).
pub(crate) fn corrupt(what: &str, err: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!("stored {what} is unreadable: {err}"))
}
