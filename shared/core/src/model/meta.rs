//! Fields the server owns on every definition.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Server-managed fields: set from the authenticated caller and the store, never from
/// the body (except `version`, which on input means "expected version").
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerFields {
    /// 1, 2, 3 ... incremented on every change.
    pub version: Option<u64>,
    /// Principal that created the definition.
    pub created_by: Option<String>,
    /// Principal that made the latest change.
    pub last_modified_by: Option<String>,
    /// Creation time, RFC 3339 UTC.
    pub created_at: Option<DateTime<Utc>>,
    /// Time of the latest change, RFC 3339 UTC.
    pub updated_at: Option<DateTime<Utc>>,
    /// Where the agent is published as a persistent Bedrock agent (agents only; set by
    /// `POST /agents/{id}/publish`, cleared by unpublishing).
    pub publication: Option<Publication>,
}

/// A publication of an agent to Bedrock Agents: the resolution for one audience, as a
/// persistent agent behind an alias.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Publication {
    /// The Bedrock agent id.
    pub bedrock_agent_id: String,
    /// The Bedrock agent ARN.
    pub bedrock_agent_arn: String,
    /// The alias the registry moves to each new version.
    pub alias_id: String,
    /// The alias ARN: what collaborators and callers invoke.
    pub alias_arn: String,
    /// The Bedrock agent version the alias routes to.
    pub agent_version: String,
    /// The registry version of the agent that was published.
    pub registry_version: u64,
    /// The request context the agent was resolved for (its audience), as given.
    #[schema(value_type = Object)]
    pub context: serde_json::Value,
    /// When it was published, RFC 3339 UTC.
    pub published_at: DateTime<Utc>,
    /// Who published it.
    pub published_by: String,
}
