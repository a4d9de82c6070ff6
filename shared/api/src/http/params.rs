//! Path and query parameters: ids, version numbers, list queries.

use axum::extract::{FromRequestParts, Path, Query};
use http::request::Parts;
use registry_core::{ExecutionType, Kind, LifecycleStatus, pointer};
use registry_store::{ListFilter, ListQuery, TagFilter};

use crate::http::problem::Problem;

/// The `{id}` path parameter.
#[derive(Debug, Clone)]
pub struct Id(pub String);

impl<S: Send + Sync> FromRequestParts<S> for Id {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| Problem::bad_request("", format!("bad path: {e}")))?;
        Ok(Self(id))
    }
}

/// The `{id}` and `{v}` path parameters of a version snapshot.
#[derive(Debug, Clone)]
pub struct IdVersion(pub String, pub u64);

impl<S: Send + Sync> FromRequestParts<S> for IdVersion {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        let Path((id, v)) = Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map_err(|e| Problem::bad_request("", format!("bad path: {e}")))?;
        match v.parse::<u64>() {
            Ok(n) if n >= 1 => Ok(Self(id, n)),
            _ => Err(Problem::bad_request("", format!("version `{v}` is not a positive integer"))),
        }
    }
}

/// Query parameters of the agent list (for the OpenAPI document; parsed by
/// [`ListParams`]).
#[derive(Debug, Clone, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct AgentListParamsDoc {
    /// Page size, 1..100 (default 25).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// Opaque cursor: the `nextCursor` of the previous page.
    cursor: Option<String>,
    /// Tag filter: `key` (any value) or `key=value`.
    #[param(pattern = "^[^=]")]
    tag: Option<String>,
    /// Lifecycle status.
    #[param(inline)]
    status: Option<StatusParam>,
    /// Principal that created the definition.
    #[param(rename = "createdBy")]
    created_by: Option<String>,
}

/// Query parameters of the tool list (for the OpenAPI document; parsed by
/// [`ListParams`]).
#[derive(Debug, Clone, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct ToolListParamsDoc {
    /// Page size, 1..100 (default 25); not with `name`.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// Opaque cursor: the `nextCursor` of the previous page; not with `name`.
    cursor: Option<String>,
    /// Tag filter: `key` (any value) or `key=value`.
    #[param(pattern = "^[^=]")]
    tag: Option<String>,
    /// Lifecycle status.
    #[param(inline)]
    status: Option<StatusParam>,
    /// How the tool runs.
    #[param(rename = "executionType", inline)]
    execution_type: Option<ExecutionTypeParam>,
    /// Principal that created the definition.
    #[param(rename = "createdBy")]
    created_by: Option<String>,
    /// Every release of this tool name (`<name>@<version>`), in ascending semantic
    /// order, in one page (not with `limit` or `cursor`).
    #[param(pattern = "^[^@]+$")]
    name: Option<String>,
}

/// A lifecycle status, as a list filter.
#[derive(Debug, Clone, utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)]
enum StatusParam {
    Active,
    Deprecated,
    Disabled,
    Retired,
}

/// An execution type, as a list filter.
#[derive(Debug, Clone, utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)]
enum ExecutionTypeParam {
    Lambda,
    Mcp,
    Inline,
}

/// Query parameters of a version history (for the OpenAPI document).
#[derive(Debug, Clone, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct PageParamsDoc {
    /// Page size, 1..100 (default 25).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// Opaque cursor: the `nextCursor` of the previous page.
    cursor: Option<String>,
}

/// Query parameters of a tool create or replace (for the OpenAPI document; parsed by
/// [`VerifyOnWrite`]).
#[derive(Debug, Clone, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct VerifyParamsDoc {
    /// Check the tool's Lambda with AWS first (as `POST /tools/{id}/verify`); a failing check is a 400 and nothing is written
    verify: Option<bool>,
}

/// The query string as name/value pairs (list and schema routes parse them further).
#[derive(Debug, Clone)]
pub struct ListParams(pub Vec<(String, String)>);

impl<S: Send + Sync> FromRequestParts<S> for ListParams {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        let Query(pairs) =
            Query::<Vec<(String, String)>>::from_request_parts(parts, state)
                .await
                .map_err(|e| Problem::bad_request("", format!("bad query string: {e}")))?;
        Ok(Self(pairs))
    }
}

impl ListParams {
    /// The store query for a list of `kind` (`filters` false for version histories,
    /// which take only `limit` and `cursor`).
    pub fn to_query(&self, kind: Kind, filters: bool) -> Result<ListQuery, Problem> {
        let mut query = ListQuery::default();
        let mut filter = ListFilter::default();
        let mut errors = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in &self.0 {
            let path = pointer("", key);
            if seen.contains(&key.as_str()) {
                errors.push(violation(&path, "given more than once"));
                continue;
            }
            seen.push(key);
            match key.as_str() {
                "limit" => match value.parse::<u32>() {
                    Ok(n) if (1..=100).contains(&n) => query.limit = n,
                    _ => errors.push(violation(&path, "must be an integer from 1 to 100")),
                },
                "cursor" => query.cursor = Some(value.clone()),
                "tag" if filters => {
                    let (k, v) = match value.split_once('=') {
                        Some((k, v)) => (k.to_owned(), Some(v.to_owned())),
                        None => (value.clone(), None),
                    };
                    if k.is_empty() {
                        errors.push(violation(&path, "must be `key` or `key=value`"));
                    }
                    filter.tag = Some(TagFilter { key: k, value: v });
                }
                "status" if filters => match LifecycleStatus::parse(value) {
                    Some(s) => filter.status = Some(s),
                    None => errors.push(violation(
                        &path,
                        "must be one of active, deprecated, disabled, retired",
                    )),
                },
                "executionType" if filters && kind == Kind::Tool => {
                    match ExecutionType::parse(value) {
                        Some(t) => filter.execution_type = Some(t),
                        None => errors.push(violation(&path, "must be one of lambda, mcp, inline")),
                    }
                }
                "createdBy" if filters => filter.created_by = Some(value.clone()),
                "name" if filters && kind == Kind::Tool => {
                    if value.is_empty() || value.contains('@') {
                        errors.push(violation(&path, "must be a tool name, without `@version`"));
                    }
                    filter.name = Some(value.clone());
                }
                _ => errors.push(violation(&path, "unknown query parameter")),
            }
        }
        if filter.name.is_some() {
            for key in ["limit", "cursor"].into_iter().filter(|k| seen.contains(k)) {
                errors.push(violation(
                    &pointer("", key),
                    "not with `name`: the releases of a name come in one page",
                ));
            }
        }
        if !errors.is_empty() {
            return Err(Problem::validation(errors));
        }
        query.filter = filter;
        Ok(query)
    }
}

fn violation(path: &str, message: &str) -> registry_core::Violation {
    registry_core::Violation { path: path.to_owned(), message: message.to_owned() }
}

/// `?verify=true` on a tool write: check the tool's Lambda with AWS before storing it.
#[derive(Debug, Clone, Copy, Default)]
pub struct VerifyOnWrite(pub bool);

/// The query of an agent write: none is read (any is ignored).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoQuery;

impl<S: Send + Sync> FromRequestParts<S> for NoQuery {
    type Rejection = Problem;

    async fn from_request_parts(_parts: &mut Parts, _state: &S) -> Result<Self, Problem> {
        Ok(Self)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for VerifyOnWrite {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        flag(parts, state, "verify").await.map(Self)
    }
}

/// `?explain=true` on resolve and authorize: the full decision trace.
#[derive(Debug, Clone, Copy, Default)]
pub struct Explain(pub bool);

/// The query parameters of resolve and authorize, for the OpenAPI document.
#[derive(Debug, Clone, Copy, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct ExplainParamsDoc {
    /// `true`: answer with the full decision trace (default `false`: the compact `leftOut` list; the decision log has the rest)
    explain: Option<bool>,
}

impl<S: Send + Sync> FromRequestParts<S> for Explain {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        flag(parts, state, "explain").await.map(Self)
    }
}

/// `?sessionId=` on resolve: the Bedrock session the principal token is bound to
/// (checked as Bedrock checks session ids); absent, the registry makes one.
#[derive(Debug, Clone, Default)]
pub struct SessionParam(pub Option<String>);

/// The session query parameter of resolve, for the OpenAPI document.
#[derive(Debug, Clone, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct SessionParamDoc {
    /// The Bedrock `sessionId` the request will be sent with (2 to 100 characters of `0-9 a-z A-Z . _ : -`): the principal token's `sid`. Absent: the registry makes one and answers it as `sessionId`.
    #[param(rename = "sessionId")]
    session_id: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for SessionParam {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        let ListParams(pairs) = ListParams::from_request_parts(parts, state).await?;
        let mut found = pairs.into_iter().filter(|(n, _)| n == "sessionId").map(|(_, v)| v);
        let session = found.next();
        if found.next().is_some() {
            return Err(Problem::bad_request(
                "/sessionId",
                "query parameter `sessionId` is given twice",
            ));
        }
        if let Some(problem) =
            session.as_deref().and_then(registry_core::session::session_id_problem)
        {
            return Err(Problem::validation(vec![registry_core::Violation {
                path: "/sessionId".into(),
                message: problem,
            }]));
        }
        Ok(Self(session))
    }
}

/// The boolean query parameter `name` (`true` or `false`; absent: `false`).
async fn flag<S: Send + Sync>(parts: &mut Parts, state: &S, name: &str) -> Result<bool, Problem> {
    let ListParams(pairs) = ListParams::from_request_parts(parts, state).await?;
    let mut on = false;
    for (_, value) in pairs.iter().filter(|(n, _)| n == name) {
        on = match value.as_str() {
            "true" => true,
            "false" => false,
            other => {
                return Err(Problem::bad_request(
                    "",
                    format!("query parameter `{name}` must be `true` or `false`, not `{other}`"),
                ));
            }
        };
    }
    Ok(on)
}
