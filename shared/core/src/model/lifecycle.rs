//! Lifecycle of agents and tools (SPEC section 6).

use serde::{Deserialize, Serialize};

use super::Unknown;

/// Where a definition is in its life.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum LifecycleStatus {
    /// Normal (`enabled` is accepted as a synonym on input).
    #[default]
    #[serde(alias = "enabled")]
    Active,
    /// Still served, with a warning naming the deprecation date and migration path.
    Deprecated,
    /// Kill switch: left out of every resolution, can be re-enabled.
    Disabled,
    /// Terminal: cannot be bound, left out of every resolution.
    Retired,
}

impl LifecycleStatus {
    /// The wire name of the status.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Deprecated => "deprecated",
            Self::Disabled => "disabled",
            Self::Retired => "retired",
        }
    }

    /// Parses a wire name (accepting `enabled` for `active`).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "active" | "enabled" => Some(Self::Active),
            "deprecated" => Some(Self::Deprecated),
            "disabled" => Some(Self::Disabled),
            "retired" => Some(Self::Retired),
            _ => None,
        }
    }
}

/// Lifecycle block of a definition.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Lifecycle {
    /// Current status.
    pub status: LifecycleStatus,
    /// When the definition stops being served (ISO 8601), for deprecation warnings.
    pub deprecation_date: Option<String>,
    /// What to move to instead.
    pub migration_path: Option<String>,
    /// Fields not in the model, kept only so validation can name them.
    #[serde(flatten, skip_serializing)]
    #[schema(ignore)]
    pub unknown: Unknown,
}
