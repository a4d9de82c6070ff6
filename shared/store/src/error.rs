//! Errors a store reports.

/// Why a store operation failed; every variant but `Backend` is the caller's doing.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No live definition with that id (or no such version).
    #[error("not found")]
    NotFound,
    /// A create found a live definition with that id.
    #[error("already exists at version {current}")]
    AlreadyExists {
        /// The live version.
        current: u64,
    },
    /// The expected version did not match the stored one (a lost race or a stale edit).
    #[error("version mismatch: expected {expected}, {}", stored_version(*current))]
    VersionMismatch {
        /// Version the caller expected.
        expected: u64,
        /// Version actually stored (`None` when the definition does not exist).
        current: Option<u64>,
    },
    /// An agent referenced tools that do not exist or are retired.
    #[error("bad references: missing {missing:?}, retired {retired:?}")]
    BadReferences {
        /// Referenced tool ids that do not exist.
        missing: Vec<String>,
        /// Referenced tool ids that are retired.
        retired: Vec<String>,
    },
    /// A tool cannot be deleted while agents reference it (unless it is retired).
    #[error("in use by agents {agents:?}")]
    InUse {
        /// Ids of the agents that reference the tool.
        agents: Vec<String>,
    },
    /// One change is too large for the backend's atomic write (e.g. DynamoDB's 100-item
    /// transactions): the caller should split it into smaller changes.
    #[error("change too large: {0}")]
    TooLarge(String),
    /// A list cursor that this store did not issue, or that was tampered with.
    #[error("invalid cursor")]
    InvalidCursor,
    /// The backend is throttling or temporarily unreachable; the caller may retry.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// Anything else; never caused by client input.
    #[error("store failure: {0}")]
    Backend(String),
}

/// The stored version in the words of an error message: `current N`, or that there is
/// none.
pub fn stored_version(current: Option<u64>) -> String {
    current.map_or_else(|| "no stored version".to_owned(), |v| format!("current {v}"))
}
