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
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde::{Deserialize, Serialize};

use crate::http::AppState;
use crate::http::auth::at_most_one;
use crate::http::json::json_ok;
use crate::http::problem::Problem;
use crate::http::protected_resource;
use crate::http::responses::{CallErrors, NotFound};
use crate::service::{
    Discovery, SearchQuery, SearchResults, ServerList, ServersQuery, ServiceError, VersionRef,
    VersionsQuery, Viewer,
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

/// Why a caller may not discover: the problem, and on a 401 the challenge naming the
/// protected-resource metadata (RFC 9728).
#[derive(Debug)]
pub struct DiscoveryRefusal(Box<(Problem, Option<HeaderValue>)>);

impl IntoResponse for DiscoveryRefusal {
    fn into_response(self) -> Response {
        let (problem, challenge) = *self.0;
        let mut response = DiscoveryProblem(problem).into_response();
        if let (StatusCode::UNAUTHORIZED, Some(challenge)) = (response.status(), challenge) {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, challenge);
        }
        response
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
    type Rejection = DiscoveryRefusal;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, DiscoveryRefusal> {
        let discovery = &state.registry.discovery;
        let unauthenticated = |problem: Problem| {
            DiscoveryRefusal(Box::new((
                problem,
                protected_resource::challenge(discovery, &parts.headers),
            )))
        };
        at_most_one(&parts.headers, "Authorization").map_err(unauthenticated)?;
        let refused = match state.authenticator.authenticate(parts) {
            Ok(_) => return Ok(Self(Viewer::Everyone)),
            Err(e) => e,
        };
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
                None => Err(unauthenticated(Problem::from(refused))),
            },
            None => match (
                parts.headers.contains_key(http::header::AUTHORIZATION),
                discovery.anonymous(),
            ) {
                (false, Some(anonymous)) => Ok(Self(Viewer::Principal {
                    agent_id: anonymous.agent_id.clone(),
                    context: Box::new(anonymous.context.clone()),
                })),
                _ => Err(unauthenticated(Problem::from(refused))),
            },
        }
    }
}

/// The query of a tool search.
#[derive(Debug, Clone, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchParams {
    /// The words (at most 256 characters).
    #[param(max_length = 256)]
    pub q: Option<String>,
    /// Most results, 1 to 100 (default 10).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
}

/// Path parameters whose rejection (a segment that is no UTF-8) is a problem too.
pub struct DiscoveryPath<T>(pub T);

impl<T, S> FromRequestParts<S> for DiscoveryPath<T>
where
    T: serde::de::DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = DiscoveryProblem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, DiscoveryProblem> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(value)| Self(value))
            .map_err(|e| Problem::bad_request("", format!("bad path: {}", e.body_text())).into())
    }
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
    let search = SearchQuery::from_params(params.q.as_deref(), params.limit.as_deref())?;
    Ok(Json(discovery.search(&viewer, search).await?))
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
    params(
        ("serverName" = String, Path, description = "URL-encoded server name (`com.example%2Fweather`)"),
        VersionsQuery,
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The MCP Registry spec's ServerList", body = ServerList),
        CallErrors, NotFound,
    ))]
pub async fn server_versions(
    State(discovery): State<Discovery>,
    Discoverer(viewer): Discoverer,
    DiscoveryPath(name): DiscoveryPath<String>,
    params: Result<Query<VersionsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<ServerList>, DiscoveryProblem> {
    let include_deleted = query(params)?.include_deleted()?;
    Ok(Json(discovery.server_versions(&viewer, &name, include_deleted).await?))
}

/// MCP Registry API: one version of a server, or `latest`.
#[utoipa::path(get, path = "/v0.1/servers/{serverName}/versions/{version}", tag = "discovery",
    params(
        ("serverName" = String, Path, description = "URL-encoded server name"),
        ("version" = String, Path, description = "A version, or `latest`"),
        VersionsQuery,
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The MCP Registry spec's ServerResponse", body = registry_discovery::ServerResponse),
        CallErrors, NotFound,
    ))]
pub async fn server_version(
    State(discovery): State<Discovery>,
    Discoverer(viewer): Discoverer,
    DiscoveryPath((name, version)): DiscoveryPath<(String, String)>,
    params: Result<Query<VersionsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<registry_discovery::ServerResponse>, DiscoveryProblem> {
    let include_deleted = query(params)?.include_deleted()?;
    let version = VersionRef::parse(&version);
    Ok(Json(discovery.server_version(&viewer, &name, version, include_deleted).await?))
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
    DiscoveryPath(agent_id): DiscoveryPath<String>,
) -> Result<Json<registry_discovery::AgentCard>, DiscoveryProblem> {
    Ok(Json(discovery.agent_card(&viewer, &agent_id).await?))
}

/// The AI catalog: the agent cards and MCP servers the caller may see.
#[utoipa::path(get, path = "/.well-known/ai-catalog.json", tag = "discovery",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "An AI Catalog document", body = registry_discovery::catalog::Catalog, content_type = "application/ai-catalog+json"),
        CallErrors,
    ))]
pub async fn ai_catalog(
    State(discovery): State<Discovery>,
    Discoverer(viewer): Discoverer,
    headers: HeaderMap,
) -> Result<Response, DiscoveryProblem> {
    let base = protected_resource::base_url(&discovery, &headers);
    let catalog = discovery.catalog(&viewer, &base).await?;
    let mut response = json_ok(&catalog);
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(registry_discovery::catalog::CATALOG_TYPE),
    );
    Ok(response)
}
