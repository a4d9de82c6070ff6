//! Fields the server owns on every definition.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Server-managed fields: set from the authenticated caller and the store, never from
/// the body (except `version`, which on input means "expected version").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerFields {
    /// 1, 2, 3 ... incremented on every change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Principal that created the definition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
    /// Principal that made the latest change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified_by: Option<String>,
    /// Creation time, RFC 3339 UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<DateTime<Utc>>,
    /// Time of the latest change, RFC 3339 UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<DateTime<Utc>>,
}
