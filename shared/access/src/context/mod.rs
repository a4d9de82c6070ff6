//! The request context: the JSON body of the resolve and evaluate APIs, and what
//! conditions see as `user`, `customData`, `account` and `request`.

mod json;
mod limits;
pub(crate) mod prepared;
pub(crate) mod value;

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Who is calling.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserContext {
    /// Stable user id.
    pub user_id: Option<String>,
    /// Kind of user, e.g. `internal-user`.
    pub user_type: Option<String>,
    /// Email address.
    pub email: Option<String>,
    /// Roles held.
    pub roles: Option<Vec<String>>,
}

/// The account the call is made for.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AccountContext {
    /// Account id (the default rollout stickiness key).
    pub account_id: Option<String>,
    /// Account type, e.g. `retailer`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub account_type: Option<String>,
    /// Owning organization.
    pub organization_id: Option<String>,
}

/// Facts about the request itself.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequestInfo {
    /// AWS region of the caller, e.g. `us-west-2`.
    pub region: Option<String>,
    /// Time of the request (RFC 3339); the evaluation time when absent.
    pub time: Option<DateTime<FixedOffset>>,
    /// Agent being resolved (set by resolution).
    pub agent_id: Option<String>,
    /// Tool being checked (set by resolution, per tool).
    pub tool_id: Option<String>,
}

/// `{user, customData, account, request}`: what access rules are evaluated against.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequestContext {
    /// The caller.
    #[serde(default)]
    pub user: UserContext,
    /// Free-form attributes (bounded: see `limits`).
    #[serde(default)]
    #[schema(value_type = Object)]
    pub custom_data: Map<String, Value>,
    /// The account.
    #[serde(default)]
    pub account: AccountContext,
    /// The request.
    #[serde(default)]
    pub request: RequestInfo,
}
