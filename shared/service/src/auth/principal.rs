//! The authenticated caller: a name and a role.

use serde::{Deserialize, Serialize};

/// What a caller may do; roles are ordered, each includes the ones below it, except
/// `approver`: it reads, and approves or rejects proposals (as admin does), which
/// `editor` does not (see `crate::can_approve`), and tools' access tokens, which only
/// `runtime` obtains (see `can_obtain_tokens`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// May read definitions (and resolve agents).
    Reader,
    /// A chat runtime: may also obtain tools' short-lived access tokens
    /// (`POST /tools/{id}/token`), which no other role may (decision 70).
    Runtime,
    /// May also approve and reject proposals (never its own), but not write.
    Approver,
    /// May also create and change definitions.
    Editor,
    /// May also delete definitions and retire them.
    Admin,
}

impl Role {
    /// The wire name: `reader`, `runtime`, `approver`, `editor` or `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reader => "reader",
            Self::Runtime => "runtime",
            Self::Approver => "approver",
            Self::Editor => "editor",
            Self::Admin => "admin",
        }
    }
}

/// An authenticated caller: the name recorded in `createdBy`/`lastModifiedBy`, and a role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Principal {
    /// Principal name.
    pub name: String,
    /// Role of the principal.
    pub role: Role,
}

impl Principal {
    /// A principal with the given name and role.
    pub fn new(name: impl Into<String>, role: Role) -> Self {
        Self { name: name.into(), role }
    }

    /// True when the principal's role is at least `role`.
    pub fn has(&self, role: Role) -> bool {
        self.role >= role
    }
}
