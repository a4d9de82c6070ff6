//! Proposals: a reviewed change waiting for approval, stored next to the definitions.

use chrono::{DateTime, Utc};
use registry_core::{AgentDefinition, Definition, Kind, ToolDefinition};
use serde::{Deserialize, Serialize};

use crate::StoreError;

/// Where a proposal is in its life: `open` -> `approved` -> `applied`, or `rejected`,
/// `cancelled` or `stale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProposalState {
    /// Waiting for approvals.
    Open,
    /// Approved by enough approvers; being applied.
    Approved,
    /// Applied: its definition is (or was) the served version.
    Applied,
    /// Rejected by an approver.
    Rejected,
    /// Withdrawn by its author.
    Cancelled,
    /// The definition changed since the proposal's base: it can no longer apply.
    Stale,
}

impl ProposalState {
    /// Every state.
    pub const ALL: [ProposalState; 6] =
        [Self::Open, Self::Approved, Self::Applied, Self::Rejected, Self::Cancelled, Self::Stale];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Approved => "approved",
            Self::Applied => "applied",
            Self::Rejected => "rejected",
            Self::Cancelled => "cancelled",
            Self::Stale => "stale",
        }
    }

    /// The state named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// True once nothing more can happen to the proposal.
    pub fn is_closed(self) -> bool {
        matches!(self, Self::Applied | Self::Rejected | Self::Cancelled | Self::Stale)
    }
}

/// One approval of a proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Approval {
    /// The approver.
    pub by: String,
    /// When, RFC 3339 UTC.
    pub at: DateTime<Utc>,
}

/// How a proposal was closed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Closing {
    /// Who closed it (the approver who applied or rejected it, the author who cancelled).
    pub by: String,
    /// When, RFC 3339 UTC.
    pub at: DateTime<Utc>,
    /// Why (a rejection's reason, or what made it stale).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A proposed change of one definition. `definition` is the stored JSON form, secrets
/// included (they are needed to apply it); never send it to a client unredacted.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Proposal {
    /// Proposal id (UUIDv7: ids sort by creation).
    pub id: String,
    /// Kind of the definition.
    pub kind: Kind,
    /// Id of the definition.
    pub definition_id: String,
    /// The served version the proposal was made against (`None`: it creates the
    /// definition).
    pub base_version: Option<u64>,
    /// The proposed definition, in its stored JSON form.
    pub definition: serde_json::Value,
    /// Who proposed it.
    pub author: String,
    /// When, RFC 3339 UTC.
    pub created_at: DateTime<Utc>,
    /// The author's note.
    pub note: Option<String>,
    /// Where it is in its life.
    pub state: ProposalState,
    /// Approvals so far, oldest first.
    #[serde(default)]
    pub approvals: Vec<Approval>,
    /// How it was closed, once closed.
    pub closed: Option<Closing>,
    /// The version it became, once applied.
    pub applied_version: Option<u64>,
    /// Store revision, assigned by the store: 1 on creation, +1 on every update.
    #[serde(default)]
    pub revision: u64,
}

impl Proposal {
    /// The proposed definition, parsed.
    pub fn proposed(&self) -> Result<Definition, StoreError> {
        let value = self.definition.clone();
        match self.kind {
            Kind::Agent => serde_json::from_value::<AgentDefinition>(value).map(Definition::Agent),
            Kind::Tool => serde_json::from_value::<ToolDefinition>(value).map(Definition::Tool),
        }
        .map_err(|e| StoreError::Backend(format!("stored proposal {} is corrupt: {e}", self.id)))
    }
}

/// Which proposals a page holds; all given filters must match. Ordered by id (oldest
/// first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposalQuery {
    /// Only proposals in this state.
    pub state: Option<ProposalState>,
    /// Only proposals for definitions of this kind.
    pub kind: Option<Kind>,
    /// Only proposals for this definition id.
    pub id: Option<String>,
    /// Page size, 1..=100 (backends clamp).
    pub limit: u32,
    /// The last proposal id of the previous page.
    pub after: Option<String>,
}

impl Default for ProposalQuery {
    fn default() -> Self {
        Self { state: None, kind: None, id: None, limit: 25, after: None }
    }
}
