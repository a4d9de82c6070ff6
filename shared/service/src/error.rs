//! Errors of the service layer, independent of HTTP.

use registry_core::{Kind, Violation};
use registry_store::StoreError;

/// Why a service operation failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ServiceError {
    /// The input is invalid; every violation is listed with its JSON Pointer.
    #[error("invalid input: {} violation(s)", .0.len())]
    Invalid(Vec<Violation>),
    /// No live definition (or version) with that id.
    #[error("{} `{id}` not found", kind.as_str())]
    NotFound {
        /// Kind looked up.
        kind: Kind,
        /// Id looked up.
        id: String,
    },
    /// A create found a live definition with that id.
    #[error("{} `{id}` already exists at version {current}", kind.as_str())]
    AlreadyExists {
        /// Kind created.
        kind: Kind,
        /// The id.
        id: String,
        /// The live version.
        current: u64,
    },
    /// The expected version does not match the stored one.
    #[error("version mismatch: expected {expected}, {}", registry_store::stored_version(*current))]
    VersionMismatch {
        /// Version the caller expected.
        expected: u64,
        /// Version stored (`None` when the definition does not exist).
        current: Option<u64>,
    },
    /// The definition is retired, which is terminal: only delete is allowed.
    #[error("{} `{id}` is retired; a retired definition cannot be changed, only deleted", kind.as_str())]
    Retired {
        /// Kind.
        kind: Kind,
        /// Id.
        id: String,
    },
    /// A tool cannot be deleted while agents reference it.
    #[error(
        "tool `{tool_id}` is used by agents {agents:?}; retire it or remove it from them first"
    )]
    InUse {
        /// The tool.
        tool_id: String,
        /// Agents that reference it.
        agents: Vec<String>,
    },
    /// The caller's role does not allow this operation.
    #[error("{0}")]
    Forbidden(String),
    /// Concurrent writers kept winning; the caller may retry.
    #[error("the definition kept changing concurrently; retry")]
    Contention,
    /// The store is throttled or unreachable; the caller may retry.
    #[error("store unavailable")]
    Unavailable(String),
    /// A failure that is not the caller's doing.
    #[error("internal error")]
    Internal(String),
    /// The agent is published to Bedrock (delete refused until it is unpublished), or
    /// Bedrock refused to remove it while in use.
    #[error("{0}")]
    Published(String),
    /// The operation's own budget of concurrent requests is spent (the token broker);
    /// the caller may retry shortly.
    #[error("{0}")]
    Overloaded(String),
    /// AWS, or the endpoint standing in for it, refused or failed a call.
    #[error("{0}")]
    Upstream(String),
    /// No proposal with that id.
    #[error("proposal `{0}` not found")]
    ProposalNotFound(String),
    /// No MCP server of that name (or none the caller may see), or not that version of
    /// one: discovery's 404, which names the server (and the version), never a tool.
    #[error("{}", match version {
        Some(v) => format!("server `{name}` has no version `{v}`"),
        None => format!("server `{name}` not found"),
    })]
    ServerNotFound {
        /// The server name asked for.
        name: String,
        /// The version asked for, when the server exists.
        version: Option<String>,
    },
    /// The proposal's state does not allow the operation (closed, stale, approved
    /// twice by one approver, changed concurrently).
    #[error("{0}")]
    ProposalConflict(String),
}

impl ServiceError {
    /// An `Invalid` error with a single violation.
    pub fn invalid(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid(vec![Violation { path: path.into(), message: message.into() }])
    }

    /// Maps a store error that needs no extra context.
    pub(crate) fn from_store(kind: Kind, id: &str, err: StoreError) -> Self {
        match err {
            StoreError::NotFound => Self::NotFound { kind, id: id.to_owned() },
            StoreError::AlreadyExists { current } => {
                Self::AlreadyExists { kind, id: id.to_owned(), current }
            }
            StoreError::VersionMismatch { expected, current } => {
                Self::VersionMismatch { expected, current }
            }
            StoreError::InUse { agents } => Self::InUse { tool_id: id.to_owned(), agents },
            StoreError::InvalidCursor => {
                Self::invalid("/cursor", "invalid cursor: pass a nextCursor from a previous page")
            }
            StoreError::BadReferences { missing, retired } => Self::Invalid(
                missing
                    .iter()
                    .map(|t| Violation {
                        path: String::new(),
                        message: format!("tool `{t}` does not exist"),
                    })
                    .chain(retired.iter().map(|t| Violation {
                        path: String::new(),
                        message: format!("tool `{t}` is retired"),
                    }))
                    .collect(),
            ),
            StoreError::TooLarge(msg) => Self::invalid("", msg),
            StoreError::Unavailable(msg) => Self::Unavailable(msg),
            StoreError::Backend(msg) => Self::Internal(msg),
        }
    }
}
