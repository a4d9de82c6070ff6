//! Discovery routes (docs/discovery.md): `/v0.1/servers` (the MCP Registry API's read
//! side), `/agent-cards/{agentId}`, `/.well-known/ai-catalog.json` and `/tools/search`.
//! A caller with a role sees everything; a principal token (the `registryPrincipal` a
//! resolution issued) sent as the bearer token sees what resolution grants it; without
//! credentials, the configured anonymous principal, if any. Errors are problems that
//! also carry the MCP Registry spec's `error` member; a 404 (no such entry, or one
//! hidden from the caller) is the same either way.

use axum::Json;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::response::{IntoResponse, Response};
use http::request::Parts;
use serde::{Deserialize, Serialize};

use crate::http::AppState;
use crate::http::auth::at_most_one;
use crate::http::problem::Problem;
use crate::http::responses::{CallErrors, NotFound};
use crate::service::{
    Discovery, SearchQuery, SearchResults, ServerList, ServersQuery, ServiceError, VersionRef,
    Viewer,
};

/// A problem with the MCP Registry spec's `error` member beside the problem's own.
#[derive(Debug, Clone)]
pub struct DiscoveryProblem(pub Problem);

#[derive(Serialize)]
struct WithError<'a> {
    #[serde(flatten)]
    problem: &'a Problem,
    error: &'a str,
}

impl IntoResponse for DiscoveryProblem {
    fn into_response(self) -> Response {
        self.0.respond(&WithError { problem: &self.0, error: &self.0.detail })
    }
}

impl From<Problem> for DiscoveryProblem {
    fn from(problem: Problem) -> Self {
        Self(problem)
    }
}

impl From<ServiceError> for DiscoveryProblem {
    fn from(err: ServiceError) -> Self {
        Self(Problem::from(err))
    }
}

/// Who discovers (see the module docs).
#[derive(Debug, Clone)]
pub struct Discoverer(pub Viewer);

impl FromRequestParts<AppState> for Discoverer {
    type Rejection = DiscoveryProblem;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, DiscoveryProblem> {
        at_most_one(&parts.headers, "Authorization")?;
        let refused = match state.authenticator.authenticate(parts) {
            Ok(_) => return Ok(Self(Viewer::Everyone)),
            Err(e) => e,
        };
        let discovery = &state.registry.discovery;
        let bearer = parts
            .headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim());
        match bearer {
            Some(token) => match discovery.principal_of(token).await {
                Some((agent_id, context)) => {
                    Ok(Self(Viewer::Principal { agent_id, context: Box::new(context) }))
                }
                None => Err(Problem::from(refused).into()),
            },
            None => match (
                parts.headers.contains_key(http::header::AUTHORIZATION),
                discovery.anonymous(),
            ) {
                (false, Some(anonymous)) => Ok(Self(Viewer::Principal {
                    agent_id: anonymous.agent_id.clone(),
                    context: Box::new(anonymous.context.clone()),
                })),
                _ => Err(Problem::from(refused).into()),
            },
        }
    }
}

/// The query of a tool search.
#[derive(Debug, Clone, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchParams {
    /// The words (at most 256 characters).
    pub q: Option<String>,
    /// Most results, 1 to 100 (default 10).
    pub limit: Option<String>,
}

fn query<T: serde::de::DeserializeOwned>(
    parts: Result<Query<T>, axum::extract::rejection::QueryRejection>,
) -> Result<T, DiscoveryProblem> {
    parts.map(|Query(q)| q).map_err(|e| {
        Problem::bad_request("", format!("bad query string: {}", e.body_text())).into()
    })
}

/// Tools ranked by relevance to `q` (BM25 over names, descriptions, functions,
/// parameters and tags), each with the function that matched and why; only what the
/// caller may see.
#[utoipa::path(get, path = "/tools/search", tag = "discovery",
    params(SearchParams),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Best first", body = SearchResults),
        CallErrors,
    ))]
pub async fn search_tools(
    State(discovery): State<Discovery>,
    Discoverer(viewer): Discoverer,
    params: Result<Query<SearchParams>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<SearchResults>, DiscoveryProblem> {
    let params = query(params)?;
    let limit = match params.limit.as_deref().map(str::parse::<usize>) {
        None => registry_discovery::search::DEFAULT_LIMIT,
        Some(Ok(n)) => n,
        Some(Err(_)) => 0,
    };
    let q = params.q.as_deref().unwrap_or_default();
    Ok(Json(discovery.search(&viewer, SearchQuery { q, limit }).await?))
}

/// MCP Registry API: one page of the MCP server versions the caller may see.
#[utoipa::path(get, path = "/v0.1/servers", tag = "discovery",
    params(ServersQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The MCP Registry spec's ServerList", body = ServerList),
        CallErrors,
    ))]
pub async fn list_servers(
    State(discovery): State<Discovery>,
    Discoverer(viewer): Discoverer,
    params: Result<Query<ServersQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<ServerList>, DiscoveryProblem> {
    let params = query(params)?;
    Ok(Json(discovery.servers(&viewer, &params).await?))
}

/// MCP Registry API: every version of one server the caller may see, newest first.
#[utoipa::path(get, path = "/v0.1/servers/{serverName}/versions", tag = "discovery",
    params(("serverName" = String, Path, description = "URL-encoded server name (`com.example%2Fweather`)")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The MCP Registry spec's ServerList", body = ServerList),
        CallErrors, NotFound,
    ))]
pub async fn server_versions(
    State(discovery): State<Discovery>,
    Discoverer(viewer): Discoverer,
    Path(name): Path<String>,
) -> Result<Json<ServerList>, DiscoveryProblem> {
    Ok(Json(discovery.server_versions(&viewer, &name).await?))
}

/// MCP Registry API: one version of a server, or `latest`.
#[utoipa::path(get, path = "/v0.1/servers/{serverName}/versions/{version}", tag = "discovery",
    params(
        ("serverName" = String, Path, description = "URL-encoded server name"),
        ("version" = String, Path, description = "A version, or `latest`"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The MCP Registry spec's ServerResponse", body = registry_discovery::ServerResponse),
        CallErrors, NotFound,
    ))]
pub async fn server_version(
    State(discovery): State<Discovery>,
    Discoverer(viewer): Discoverer,
    Path((name, version)): Path<(String, String)>,
) -> Result<Json<registry_discovery::ServerResponse>, DiscoveryProblem> {
    Ok(Json(discovery.server_version(&viewer, &name, VersionRef::parse(&version)).await?))
}

/// The A2A agent card of an agent that declares an `endpoint`.
#[utoipa::path(get, path = "/agent-cards/{agentId}", tag = "discovery",
    params(("agentId" = String, Path, description = "Agent id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The A2A AgentCard", body = registry_discovery::AgentCard),
        CallErrors, NotFound,
    ))]
pub async fn agent_card(
    State(discovery): State<Discovery>,
    Discoverer(viewer): Discoverer,
    Path(agent_id): Path<String>,
) -> Result<Json<registry_discovery::AgentCard>, DiscoveryProblem> {
    Ok(Json(discovery.agent_card(&viewer, &agent_id).await?))
}

/// The AI catalog: the agent cards and MCP servers the caller may see.
#[utoipa::path(get, path = "/.well-known/ai-catalog.json", tag = "discovery",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The catalog", body = registry_discovery::catalog::Catalog),
        CallErrors,
    ))]
pub async fn ai_catalog(
    State(discovery): State<Discovery>,
    Discoverer(viewer): Discoverer,
) -> Result<Json<registry_discovery::catalog::Catalog>, DiscoveryProblem> {
    Ok(Json(discovery.catalog(&viewer).await?))
}
