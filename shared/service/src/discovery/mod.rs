//! Discovery (docs/discovery.md): the MCP Registry API's read side, A2A agent cards, the
//! AI catalog and ranked tool search, each filtered by who asks. A caller with a role
//! sees every definition, as the registry's own lists do; a principal (the token a
//! resolution issued, or the configured anonymous principal) sees exactly what
//! resolving its agent for its context grants: the agent, its collaborators and the
//! tools resolution keeps (decision 88). The pure mappings and the index are
//! `registry_discovery`'s; this service reads the store and decides visibility.

mod servers;
mod snapshot;
mod visible;

use std::sync::Arc;

use registry_core::{RequestContext, ToolDefinition};
use registry_discovery::search::{self, Match};
use serde::{Deserialize, Serialize};

pub use servers::{ServerList, ServerListMetadata, ServersQuery, VersionRef, VersionsQuery};
pub(crate) use snapshot::Snapshots;
pub use visible::Viewer;

use crate::{Resolver, ServiceError};

/// The namespace of server names when none is configured.
pub const DEFAULT_NAMESPACE: &str = "local.agent-registry";

/// A principal that discovers without a token (anonymous discovery, off unless
/// configured): the agent resolved for it and the request context it is resolved with.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnonymousPrincipal {
    /// The agent whose resolution decides what anonymous callers see.
    pub agent_id: String,
    /// The request context it is resolved with.
    pub context: RequestContext,
}

/// How discovery is configured.
#[derive(Debug, Clone)]
pub struct DiscoverySettings {
    /// The reverse-DNS namespace of server names (`<namespace>/<tool name>`).
    pub namespace: String,
    /// Who a caller without credentials is, if anyone.
    pub anonymous: Option<AnonymousPrincipal>,
}

impl Default for DiscoverySettings {
    fn default() -> Self {
        Self { namespace: DEFAULT_NAMESPACE.to_owned(), anonymous: None }
    }
}

/// Why discovery settings are refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// The namespace is no reverse-DNS name.
    #[error(
        "the discovery namespace `{0}` must be a reverse-DNS name ([a-zA-Z0-9.-], under 100 characters)"
    )]
    Namespace(String),
    /// The anonymous principal is not `{"agentId", "context"}`.
    #[error("the anonymous discovery principal is not {{\"agentId\", \"context\"}} JSON: {0}")]
    Anonymous(String),
}

impl DiscoverySettings {
    /// Settings from their configured text: a namespace (else [`DEFAULT_NAMESPACE`]) and
    /// the anonymous principal's JSON (else anonymous discovery is off).
    pub fn parse(namespace: Option<&str>, anonymous: Option<&str>) -> Result<Self, SettingsError> {
        let namespace = namespace.unwrap_or(DEFAULT_NAMESPACE);
        if !registry_discovery::server_json::is_namespace(namespace) {
            return Err(SettingsError::Namespace(namespace.to_owned()));
        }
        let anonymous = anonymous
            .map(|json| {
                serde_json::from_str::<AnonymousPrincipal>(json)
                    .map_err(|e| SettingsError::Anonymous(e.to_string()))
            })
            .transpose()?;
        Ok(Self { namespace: namespace.to_owned(), anonymous })
    }
}

/// Discovery: servers, cards, the catalog and search, for one viewer at a time.
#[derive(Clone)]
pub struct Discovery {
    pub(crate) resolver: Resolver,
    pub(crate) snapshots: Arc<Snapshots>,
    pub(crate) settings: Arc<DiscoverySettings>,
}

impl std::fmt::Debug for Discovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Discovery").finish_non_exhaustive()
    }
}

/// One tool found by search.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    /// The tool release.
    pub tool_id: String,
    /// Its action-group name.
    pub name: String,
    /// Its display name.
    pub display_name: String,
    /// What it does.
    pub description: String,
    /// `lambda`, `mcp` or `inline`.
    #[schema(value_type = String)]
    pub execution_type: registry_core::ExecutionType,
    /// The function whose own text matched, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// BM25 score (comparable within one answer only).
    pub score: f32,
    /// Why: the query's terms found in each field.
    pub matched: Vec<Match>,
}

/// The answer of a tool search.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct SearchResults {
    /// Best first.
    pub results: Vec<SearchResult>,
}

/// A search request's problems, each at its query parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery<'a> {
    /// The words.
    pub q: &'a str,
    /// Most results.
    pub limit: usize,
}

impl Discovery {
    /// The namespace of server names.
    pub fn namespace(&self) -> &str {
        &self.settings.namespace
    }

    /// The issuer of principal tokens (the registry's configured URL), if it issues them.
    pub fn issuer(&self) -> Option<String> {
        self.resolver.principal_keys().map(|keys| keys.settings().issuer.clone())
    }

    /// The principal a caller without credentials discovers as, if configured.
    pub fn anonymous(&self) -> Option<&AnonymousPrincipal> {
        self.settings.anonymous.as_ref()
    }

    /// The agent and request context of a bearer token `token`, if it is a principal
    /// token this registry issued (verified, its context read).
    pub async fn principal_of(
        &self,
        token: &str,
    ) -> Option<(String, registry_core::RequestContext)> {
        self.resolver.refresh_keys_for(token).await;
        let principal = self.resolver.verify_principal(token).ok()?;
        let context = serde_json::from_str(principal.context_json()).ok()?;
        Some((principal.act.sub, context))
    }

    /// The tools most relevant to `query` that `viewer` may see, best first.
    pub async fn search(
        &self,
        viewer: &Viewer,
        query: SearchQuery<'_>,
    ) -> Result<SearchResults, ServiceError> {
        check_search(query.q, query.limit)?;
        let view = self.view(viewer).await?;
        let hits = view.index().search(query.q, query.limit);
        Ok(SearchResults {
            results: hits
                .into_iter()
                .map(|hit| SearchResult {
                    tool_id: hit.tool.tool_id.clone(),
                    name: hit.tool.name.clone(),
                    display_name: hit.tool.display_name.clone(),
                    description: hit.tool.description.clone(),
                    execution_type: hit.tool.execution_type,
                    function: hit.function,
                    score: hit.score,
                    matched: hit.matched,
                })
                .collect(),
        })
    }
}

impl<'a> SearchQuery<'a> {
    /// A search from its query parameters as sent: every problem at its parameter (a
    /// `limit` that is no integer among them, named as such).
    pub fn from_params(q: Option<&'a str>, limit: Option<&str>) -> Result<Self, ServiceError> {
        let q = q.unwrap_or_default();
        let (parsed, unreadable) = match limit.map(str::parse::<usize>) {
            None => (search::DEFAULT_LIMIT, false),
            Some(Ok(n)) => (n, false),
            Some(Err(_)) => (search::DEFAULT_LIMIT, true),
        };
        let mut errors = search_violations(q, parsed);
        if unreadable {
            errors.push(limit_violation("is not an integer".to_owned()));
        }
        match errors.is_empty() {
            true => Ok(Self { q, limit: parsed }),
            false => Err(ServiceError::Invalid(errors)),
        }
    }
}

fn limit_violation(got: String) -> registry_core::Violation {
    registry_core::Violation {
        path: "/limit".to_owned(),
        message: format!("must be an integer from 1 to {} ({got})", search::MAX_LIMIT),
    }
}

/// Checks a search's words and limit: every problem at its parameter.
fn check_search(q: &str, limit: usize) -> Result<(), ServiceError> {
    let errors = search_violations(q, limit);
    if errors.is_empty() { Ok(()) } else { Err(ServiceError::Invalid(errors)) }
}

fn search_violations(q: &str, limit: usize) -> Vec<registry_core::Violation> {
    let mut errors = Vec::new();
    let chars = q.chars().count();
    if chars > search::MAX_QUERY_CHARS {
        errors.push(registry_core::Violation {
            path: "/q".to_owned(),
            message: format!("at most {} characters (got {chars})", search::MAX_QUERY_CHARS),
        });
    }
    if !(1..=search::MAX_LIMIT).contains(&limit) {
        errors.push(limit_violation(format!("got {limit}")));
    }
    errors
}

/// The tools of `tools` that are MCP servers, with their keys.
fn servers_of<'a>(
    namespace: &'a str,
    tools: impl Iterator<Item = &'a Arc<ToolDefinition>> + 'a,
) -> impl Iterator<Item = (registry_discovery::ServerKey, &'a Arc<ToolDefinition>)> + 'a {
    tools.filter_map(move |tool| registry_discovery::server_key(namespace, tool).map(|k| (k, tool)))
}
