//! `/v0.1/servers` (list, a server's versions, one version or `latest`), the agent
//! cards and the AI catalog, over what the viewer may see.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use registry_core::{Kind, ToolDefinition, Violation};
use registry_discovery::catalog::{AGENT_CARD_TYPE, CatalogEntry, MCP_SERVER_TYPE};
use registry_discovery::server_json::Status;
use registry_discovery::{AgentCard, ServerKey, ServerResponse, cursor, search};
use serde::{Deserialize, Serialize};

use super::{Discovery, Viewer, servers_of};
use crate::ServiceError;

/// Servers per page when the caller names no limit.
pub const DEFAULT_SERVERS_LIMIT: u32 = 30;

/// Most servers per page.
pub const MAX_SERVERS_LIMIT: u32 = 100;

/// Longest `version` accepted (the spec's bound of a version).
const MAX_VERSION_CHARS: usize = 255;

/// The query of `GET /v0.1/servers`, as sent (checked by [`Discovery::servers`]).
#[derive(Debug, Clone, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ServersQuery {
    /// The `metadata.nextCursor` of the previous page.
    pub cursor: Option<String>,
    /// Servers per page, 1 to 100 (default 30).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// Servers whose name contains this text, in any case (the spec's substring match;
    /// ranked search is `/tools/search`); at most 256 characters.
    #[param(max_length = 256)]
    pub search: Option<String>,
    /// Only versions updated after this RFC 3339 time; deleted ones too (incremental
    /// sync: an aggregator learns of a release switched off).
    #[param(value_type = Option<String>, format = DateTime)]
    pub updated_since: Option<String>,
    /// `latest` (each server's latest version) or one exact version.
    #[param(min_length = 1, max_length = 255)]
    pub version: Option<String>,
    /// `true`: versions whose status is `deleted` too (always with `updated_since`).
    #[param(value_type = Option<bool>)]
    pub include_deleted: Option<String>,
}

/// The query, checked.
struct Checked {
    cursor: Option<ServerKey>,
    limit: usize,
    search: Option<String>,
    updated_since: Option<DateTime<Utc>>,
    version: Option<String>,
    include_deleted: bool,
}

fn violation(parameter: &str, message: impl Into<String>) -> Violation {
    Violation { path: format!("/{parameter}"), message: message.into() }
}

impl ServersQuery {
    /// Every problem of the query at once.
    fn check(&self) -> Result<Checked, ServiceError> {
        let mut errors = Vec::new();
        let limit = match self.limit.as_deref().map(str::parse::<u32>) {
            None => DEFAULT_SERVERS_LIMIT,
            Some(Ok(n)) if (1..=MAX_SERVERS_LIMIT).contains(&n) => n,
            Some(_) => {
                errors.push(violation(
                    "limit",
                    format!("must be an integer from 1 to {MAX_SERVERS_LIMIT}"),
                ));
                DEFAULT_SERVERS_LIMIT
            }
        };
        let cursor = match self.cursor.as_deref().filter(|c| !c.is_empty()).map(cursor::decode) {
            None => None,
            Some(Ok(key)) => Some(key),
            Some(Err(e)) => {
                errors.push(violation("cursor", e.to_string()));
                None
            }
        };
        let search = self.search.clone().filter(|s| !s.trim().is_empty());
        if let Some(words) = &search
            && words.chars().count() > search::MAX_QUERY_CHARS
        {
            errors.push(violation(
                "search",
                format!("at most {} characters", search::MAX_QUERY_CHARS),
            ));
        }
        let updated_since = match self.updated_since.as_deref().map(DateTime::parse_from_rfc3339) {
            None => None,
            Some(Ok(at)) => Some(at.with_timezone(&Utc)),
            Some(Err(e)) => {
                errors.push(violation("updated_since", format!("is not an RFC 3339 time: {e}")));
                None
            }
        };
        if let Some(version) = &self.version
            && (version.is_empty() || version.chars().count() > MAX_VERSION_CHARS)
        {
            errors
                .push(violation("version", format!("must be 1 to {MAX_VERSION_CHARS} characters")));
        }
        let include_deleted = match include_deleted(self.include_deleted.as_deref()) {
            Ok(flag) => flag,
            Err(v) => {
                errors.push(v);
                false
            }
        };
        if !errors.is_empty() {
            return Err(ServiceError::Invalid(errors));
        }
        Ok(Checked {
            cursor,
            limit: limit as usize,
            search,
            // the spec: "always true when updated_since is provided", so a sub-registry
            // syncing incrementally learns of a release switched off
            include_deleted: include_deleted || updated_since.is_some(),
            updated_since,
            version: self.version.clone(),
        })
    }
}

/// The query of a server's versions: `include_deleted` alone.
#[derive(Debug, Clone, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct VersionsQuery {
    /// `true`: versions whose status is `deleted` too (default `false`).
    #[param(value_type = Option<bool>)]
    pub include_deleted: Option<String>,
}

impl VersionsQuery {
    /// Whether deleted versions are included.
    pub fn include_deleted(&self) -> Result<bool, ServiceError> {
        include_deleted(self.include_deleted.as_deref()).map_err(|v| ServiceError::Invalid(vec![v]))
    }
}

/// `include_deleted` as sent: `true`, `false` or absent.
fn include_deleted(value: Option<&str>) -> Result<bool, Violation> {
    match value {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(_) => Err(violation("include_deleted", "must be `true` or `false`")),
    }
}

/// `metadata` of a server list.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerListMetadata {
    /// The cursor of the next page; absent on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Servers on this page.
    pub count: usize,
}

/// The spec's `ServerList`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ServerList {
    /// The page.
    pub servers: Vec<ServerResponse>,
    /// Paging.
    pub metadata: ServerListMetadata,
}

/// A version path segment: `latest` or an exact version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionRef<'a> {
    /// The server's latest version.
    Latest,
    /// This version.
    Exact(&'a str),
}

impl<'a> VersionRef<'a> {
    /// `latest` or the version.
    pub fn parse(segment: &'a str) -> Self {
        if segment == "latest" { Self::Latest } else { Self::Exact(segment) }
    }
}

/// One visible server version.
struct Entry<'a> {
    key: ServerKey,
    tool: &'a Arc<ToolDefinition>,
    latest: bool,
}

/// Each visible MCP tool release with its key and whether it is its server's latest:
/// the highest version not deleted, among what the viewer sees (a deleted release is
/// never the latest; a server whose every version is deleted has none).
fn entries<'a>(
    namespace: &'a str,
    tools: impl Iterator<Item = &'a Arc<ToolDefinition>> + 'a,
) -> Vec<Entry<'a>> {
    let mut all: Vec<(ServerKey, &Arc<ToolDefinition>)> = servers_of(namespace, tools).collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    let mut latest: BTreeMap<String, semver::Version> = BTreeMap::new();
    for (key, tool) in &all {
        // sorted by version within a name: the last live one wins
        if Status::of(tool) != Status::Deleted {
            latest.insert(key.name.clone(), key.version.clone());
        }
    }
    all.into_iter()
        .map(|(key, tool)| {
            let is_latest = latest.get(&key.name) == Some(&key.version);
            Entry { key, tool, latest: is_latest }
        })
        .collect()
}

/// What a URL path segment keeps as it is (RFC 3986 unreserved); `/` and the rest are
/// percent-encoded.
const SEGMENT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// `segment` as one URL path segment.
fn encode_segment(segment: &str) -> String {
    percent_encoding::utf8_percent_encode(segment, SEGMENT).to_string()
}

fn not_found(name: &str) -> ServiceError {
    ServiceError::ServerNotFound { name: name.to_owned(), version: None }
}

/// A server the viewer sees, without the version asked for.
fn version_not_found(name: &str, version: VersionRef<'_>) -> ServiceError {
    let version = match version {
        VersionRef::Latest => "latest",
        VersionRef::Exact(v) => v,
    };
    ServiceError::ServerNotFound { name: name.to_owned(), version: Some(version.to_owned()) }
}

impl Discovery {
    /// `GET /v0.1/servers`: one page of the server versions `viewer` may see.
    pub async fn servers(
        &self,
        viewer: &Viewer,
        query: &ServersQuery,
    ) -> Result<ServerList, ServiceError> {
        let query = query.check()?;
        let view = self.view(viewer).await?;
        let namespace = self.namespace();
        let mut list: Vec<Entry<'_>> = entries(namespace, view.tools())
            .into_iter()
            .filter(|e| query.include_deleted || Status::of(e.tool) != Status::Deleted)
            .filter(|e| {
                query.updated_since.is_none_or(|since| {
                    e.tool
                        .server
                        .updated_at
                        .or(e.tool.server.created_at)
                        .is_some_and(|at| at > since)
                })
            })
            .filter(|e| match query.version.as_deref() {
                None => true,
                Some("latest") => e.latest,
                Some(exact) => e.key.version.to_string() == exact,
            })
            .collect();
        if let Some(words) = &query.search {
            // the spec's substring match on the name, in any case (ranking is
            // `/tools/search`'s)
            let needle = words.trim().to_lowercase();
            list.retain(|e| e.key.name.to_lowercase().contains(&needle));
        }
        let start = match &query.cursor {
            None => 0,
            Some(after) => list.partition_point(|e| &e.key <= after),
        };
        let page: Vec<&Entry<'_>> = list.iter().skip(start).take(query.limit).collect();
        let next_cursor = (start + page.len() < list.len())
            .then(|| page.last().map(|e| cursor::encode(&e.key)))
            .flatten();
        let servers: Vec<ServerResponse> = page
            .iter()
            .map(|e| registry_discovery::server_response(namespace, &e.key, e.tool, e.latest))
            .collect();
        Ok(ServerList {
            metadata: ServerListMetadata { next_cursor, count: servers.len() },
            servers,
        })
    }

    /// `GET /v0.1/servers/{serverName}/versions`: every version of one server the viewer
    /// may see, newest first; not found when it sees none.
    pub async fn server_versions(
        &self,
        viewer: &Viewer,
        name: &str,
        include_deleted: bool,
    ) -> Result<ServerList, ServiceError> {
        let view = self.view(viewer).await?;
        let namespace = self.namespace();
        let mut versions: Vec<Entry<'_>> = entries(namespace, view.tools())
            .into_iter()
            .filter(|e| e.key.name == name)
            .filter(|e| include_deleted || Status::of(e.tool) != Status::Deleted)
            .collect();
        if versions.is_empty() {
            return Err(not_found(name));
        }
        versions.reverse();
        let servers: Vec<ServerResponse> = versions
            .iter()
            .map(|e| registry_discovery::server_response(namespace, &e.key, e.tool, e.latest))
            .collect();
        Ok(ServerList {
            metadata: ServerListMetadata { next_cursor: None, count: servers.len() },
            servers,
        })
    }

    /// `GET /v0.1/servers/{serverName}/versions/{version}`: one version (or `latest`).
    pub async fn server_version(
        &self,
        viewer: &Viewer,
        name: &str,
        version: VersionRef<'_>,
        include_deleted: bool,
    ) -> Result<ServerResponse, ServiceError> {
        let view = self.view(viewer).await?;
        let namespace = self.namespace();
        let versions: Vec<Entry<'_>> = entries(namespace, view.tools())
            .into_iter()
            .filter(|e| e.key.name == name)
            .filter(|e| include_deleted || Status::of(e.tool) != Status::Deleted)
            .collect();
        if versions.is_empty() {
            return Err(not_found(name));
        }
        versions
            .iter()
            .find(|e| match version {
                VersionRef::Latest => e.latest,
                VersionRef::Exact(v) => e.key.version.to_string() == v,
            })
            .map(|e| registry_discovery::server_response(namespace, &e.key, e.tool, e.latest))
            .ok_or_else(|| version_not_found(name, version))
    }

    /// The A2A agent card of `agent_id`: not found unless the viewer may see the agent
    /// and it declares an endpoint.
    pub async fn agent_card(
        &self,
        viewer: &Viewer,
        agent_id: &str,
    ) -> Result<AgentCard, ServiceError> {
        let view = self.view(viewer).await?;
        view.agents()
            .into_iter()
            .find(|(agent, _)| agent.agent_id == agent_id)
            .and_then(|(agent, tools)| registry_discovery::agent_card(agent, &tools))
            .ok_or_else(|| ServiceError::NotFound { kind: Kind::Agent, id: agent_id.to_owned() })
    }

    /// `/.well-known/ai-catalog.json`: the agent cards and the latest version of each MCP
    /// server the viewer may see (servers whose latest version is deleted are left out).
    pub async fn catalog(
        &self,
        viewer: &Viewer,
        base_url: &str,
    ) -> Result<registry_discovery::catalog::Catalog, ServiceError> {
        let view = self.view(viewer).await?;
        let namespace = self.namespace();
        let mut entries_out: Vec<CatalogEntry> = view
            .agents()
            .into_iter()
            .filter_map(|(agent, tools)| {
                let card = registry_discovery::agent_card(agent, &tools)?;
                Some(CatalogEntry {
                    identifier: format!("urn:air:{namespace}:a2a:{}", agent.agent_id),
                    media_type: AGENT_CARD_TYPE,
                    url: format!("{base_url}/agent-cards/{}", encode_segment(&agent.agent_id)),
                    description: card.description,
                    version: card.version,
                })
            })
            .collect();
        for e in entries(namespace, view.tools()) {
            if !e.latest || Status::of(e.tool) == Status::Deleted {
                continue;
            }
            let server =
                registry_discovery::server_response(namespace, &e.key, e.tool, true).server;
            entries_out.push(CatalogEntry {
                identifier: format!(
                    "urn:air:{namespace}:mcp:{}",
                    server.name.rsplit('/').next().unwrap_or_default()
                ),
                media_type: MCP_SERVER_TYPE,
                url: format!(
                    "{base_url}/v0.1/servers/{}/versions/latest",
                    encode_segment(&server.name)
                ),
                description: server.description,
                version: server.version,
            });
        }
        Ok(registry_discovery::catalog::Catalog {
            spec_version: registry_discovery::catalog::SPEC_VERSION,
            entries: entries_out,
        })
    }
}
