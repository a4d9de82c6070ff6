//! Mapping SQLite failures onto [`StoreError`].

use rusqlite::ErrorCode;

use registry_store::StoreError;

/// Busy or locked databases are transient ([`StoreError::Unavailable`]); everything
/// else is a backend failure.
pub(crate) fn store_error(err: rusqlite::Error) -> StoreError {
    match err.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            StoreError::Unavailable(format!("sqlite: {err}"))
        }
        _ => StoreError::Backend(format!("sqlite: {err}")),
    }
}

/// `?` for SQLite results inside functions that return [`StoreError`]:
/// `conn.execute(..).db()?`.
pub(crate) trait Db<T> {
    /// Maps the SQLite error with [`store_error`].
    fn db(self) -> Result<T, StoreError>;
}

impl<T> Db<T> for Result<T, rusqlite::Error> {
    fn db(self) -> Result<T, StoreError> {
        self.map_err(store_error)
    }
}

/// A stored document that no longer parses (never caused by client input).
pub(crate) fn corrupt(what: &str, err: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!("stored {what} is unreadable: {err}"))
}
