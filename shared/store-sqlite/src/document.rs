//! Stored form of a definition: the agent or tool JSON (with `version` and the other
//! server fields inside), the kind kept in its own column.

use registry_core::{AgentDefinition, Definition, Kind, ToolDefinition};
use rusqlite::{Connection, Params};

use super::error::{Db, corrupt};
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

/// The first column, a document, of every row `sql` selects with `params`, in order.
pub(crate) fn documents(
    conn: &Connection,
    sql: &str,
    params: impl Params,
) -> Result<Vec<String>, StoreError> {
    let mut statement = conn.prepare_cached(sql).db()?;
    let rows = statement.query_map(params, |row| row.get::<_, String>(0)).db()?;
    rows.map(|row| row.db()).collect()
}
