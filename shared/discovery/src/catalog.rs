//! `/.well-known/ai-catalog.json`: the AI Catalog draft's entries, one per agent card and
//! per MCP server the caller may see, each referring to its document by URL.

use serde::Serialize;

/// The media type of an AI Catalog document.
pub const CATALOG_TYPE: &str = "application/ai-catalog+json";

/// The revision of the AI Catalog draft the documents follow (its `specVersion`).
pub const SPEC_VERSION: &str = "1.0";

/// The media type of an A2A agent card.
pub const AGENT_CARD_TYPE: &str = "application/a2a-agent-card+json";

/// The media type of an MCP Registry `server.json`.
pub const MCP_SERVER_TYPE: &str = "application/mcp-server+json";

/// One catalog entry.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CatalogEntry {
    /// `urn:air:<namespace>:a2a:<agent id>` or `urn:air:<namespace>:mcp:<tool name>`.
    pub identifier: String,
    /// The document's media type.
    #[serde(rename = "type")]
    pub media_type: &'static str,
    /// Where the document is (an absolute URL on this registry).
    pub url: String,
    /// What it is.
    pub description: String,
    /// Its version.
    pub version: String,
}

/// The catalog.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// [`SPEC_VERSION`].
    pub spec_version: &'static str,
    /// Agent cards first (by agent id), then MCP servers (by name).
    pub entries: Vec<CatalogEntry>,
}
