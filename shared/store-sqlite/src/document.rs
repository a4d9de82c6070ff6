//! Stored form of a definition: the agent or tool JSON (with `version` and the other
//! server fields inside), the kind kept in its own column.

use registry_core::{AgentDefinition, Definition, Kind, ToolDefinition};

use super::error::corrupt;
use registry_store::StoreError;

/// The JSON document stored for `definition` (secrets included: the store keeps them).
pub(crate) fn to_document(definition: &Definition) -> Result<String, StoreError> {
    definition
        .storage_json()
        .map(|json| json.to_string())
        .map_err(|e| StoreError::Backend(format!("cannot serialize definition: {e}")))
}

/// Parses a stored document of `kind`.
pub(crate) fn from_document(kind: Kind, document: &str) -> Result<Definition, StoreError> {
    match kind {
        Kind::Agent => serde_json::from_str::<AgentDefinition>(document).map(Definition::Agent),
        Kind::Tool => serde_json::from_str::<ToolDefinition>(document).map(Definition::Tool),
    }
    .map_err(|e| corrupt(kind.as_str(), e))
}
