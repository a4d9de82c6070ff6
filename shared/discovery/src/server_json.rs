//! An MCP tool release as an MCP Registry `server.json` (`ServerDetail`) and its
//! `ServerResponse`, the shapes of the MCP Registry OpenAPI `server-registry-openapi`
//! 2025-12-01 (docs/discovery.md has the mapping).

use std::collections::BTreeMap;

use chrono::{DateTime, SecondsFormat, Utc};
use registry_core::{ExecutionType, LifecycleStatus, Release, ToolDefinition};
use serde::Serialize;
use serde_json::Value;

/// The `_meta` key of the registry-managed status (the spec's own).
pub const OFFICIAL_META: &str = "io.modelcontextprotocol.registry/official";

/// The `_meta` key of this registry's own facts, under the configured namespace.
pub const REGISTRY_META_SUFFIX: &str = "/registry";

/// The spec's bound of `description` and `title`, in characters.
pub const MAX_TEXT_CHARS: usize = 100;

/// The spec's bound of a server name, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// The version given to a tool whose id is not a release (`<name>@<semver>`).
pub const UNRELEASED_VERSION: &str = "0.0.0";

/// A server's lifecycle status, as the spec names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Usable.
    Active,
    /// Still usable, with a successor.
    Deprecated,
    /// No longer usable (`disabled` and `retired` tools).
    Deleted,
}

impl Status {
    /// The status of a tool's lifecycle.
    pub fn of(tool: &ToolDefinition) -> Self {
        match tool.lifecycle.as_ref().map(|l| l.status).unwrap_or_default() {
            LifecycleStatus::Active => Self::Active,
            LifecycleStatus::Deprecated => Self::Deprecated,
            LifecycleStatus::Disabled | LifecycleStatus::Retired => Self::Deleted,
        }
    }
}

/// One server version's place in the listing: its name and version.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ServerKey {
    /// `<namespace>/<tool name>`.
    pub name: String,
    /// The release's semantic version.
    pub version: semver::Version,
}

/// Whether `namespace` can start a server name (reverse DNS: `[a-zA-Z0-9.-]+`).
pub fn is_namespace(namespace: &str) -> bool {
    !namespace.is_empty()
        && namespace.len() < MAX_NAME_CHARS / 2
        && namespace.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
}

/// The server name and version of an MCP tool, or `None` for a tool that is no MCP
/// server, or whose id cannot form a server name (`[a-zA-Z0-9._-]+` after the slash).
pub fn server_key(namespace: &str, tool: &ToolDefinition) -> Option<ServerKey> {
    if tool.execution_type != ExecutionType::Mcp || tool.url.is_none() {
        return None;
    }
    let (short, version) = match Release::parse(&tool.tool_id) {
        Some(release) => (release.name, release.version),
        None => (tool.tool_id.clone(), semver::Version::new(0, 0, 0)),
    };
    let valid = short.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    let name = format!("{namespace}/{short}");
    (valid && name.len() <= MAX_NAME_CHARS).then_some(ServerKey { name, version })
}

/// A remote transport of a server.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Remote {
    /// `streamable-http`.
    #[serde(rename = "type")]
    pub transport: &'static str,
    /// The MCP server's URL.
    pub url: String,
}

/// `server.json`: the spec's `ServerDetail`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ServerDetail {
    /// `<namespace>/<tool name>`.
    pub name: String,
    /// The tool's description, cut to 100 characters.
    pub description: String,
    /// The tool's display name, cut to 100 characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The release's semantic version.
    pub version: String,
    /// Where the server answers.
    pub remotes: Vec<Remote>,
}

/// The spec's registry-managed status of a server version.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Official {
    /// Lifecycle status.
    pub status: Status,
    /// When the release was created.
    pub published_at: String,
    /// When the release last changed.
    pub updated_at: String,
    /// Whether this is the latest version the caller may see.
    pub is_latest: bool,
}

/// This registry's facts about the tool behind a server version.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegistryFacts {
    /// The registry's tool id.
    pub tool_id: String,
    /// The definition's revision (its ETag).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    /// The tool's functions, by name.
    pub functions: Vec<String>,
    /// The tool's tags.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// The migration path of a deprecated tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub migration_path: Option<String>,
}

/// The spec's `ServerResponse`: the server and the registry's metadata.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ServerResponse {
    /// The `server.json`.
    pub server: ServerDetail,
    /// `io.modelcontextprotocol.registry/official` and `<namespace>/registry`.
    #[serde(rename = "_meta")]
    #[schema(value_type = Object)]
    pub meta: BTreeMap<String, Value>,
}

/// `text` cut to at most `max` characters (an ellipsis marks a cut).
pub fn bounded(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn timestamp(at: Option<DateTime<Utc>>) -> String {
    at.unwrap_or_default().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The `ServerResponse` of `tool` (an MCP tool with key `key`), `is_latest` as the
/// caller sees the server's versions.
pub fn server_response(
    namespace: &str,
    key: &ServerKey,
    tool: &ToolDefinition,
    is_latest: bool,
) -> ServerResponse {
    let title = Some(bounded(&tool.display_name, MAX_TEXT_CHARS)).filter(|t| !t.is_empty());
    let description = Some(bounded(&tool.description, MAX_TEXT_CHARS))
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| key.name.clone());
    let server = ServerDetail {
        name: key.name.clone(),
        description,
        title,
        version: key.version.to_string(),
        remotes: tool
            .url
            .iter()
            .map(|url| Remote { transport: "streamable-http", url: url.clone() })
            .collect(),
    };
    let official = Official {
        status: Status::of(tool),
        published_at: timestamp(tool.server.created_at),
        updated_at: timestamp(tool.server.updated_at.or(tool.server.created_at)),
        is_latest,
    };
    let facts = RegistryFacts {
        tool_id: tool.tool_id.clone(),
        revision: tool.server.version,
        functions: tool.function_schema.iter().flatten().map(|f| f.name.clone()).collect(),
        tags: tool.tags.clone().unwrap_or_default(),
        migration_path: tool.lifecycle.as_ref().and_then(|l| l.migration_path.clone()),
    };
    let mut meta = BTreeMap::new();
    meta.insert(OFFICIAL_META.to_owned(), serde_json::to_value(official).unwrap_or_default());
    meta.insert(
        format!("{namespace}{REGISTRY_META_SUFFIX}"),
        serde_json::to_value(facts).unwrap_or_default(),
    );
    ServerResponse { server, meta }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_to_the_bound_with_an_ellipsis() {
        let long = "x".repeat(150);
        let cut = bounded(&long, MAX_TEXT_CHARS);
        assert_eq!(cut.chars().count(), MAX_TEXT_CHARS);
        assert!(cut.ends_with('…'));
        assert_eq!(bounded(" short ", MAX_TEXT_CHARS), "short");
    }

    #[test]
    fn namespaces_are_reverse_dns_labels() {
        assert!(is_namespace("com.example.tools"));
        assert!(!is_namespace("com.example/tools"));
        assert!(!is_namespace(""));
    }
}
