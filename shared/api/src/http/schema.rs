//! Tool schema routes: `GET /tools/{id}/schema` (compiled schema and compatibility
//! report) and `POST /tools/{id}/validate-call` (argument check, `valid: false` on a bad
//! call: the request itself was fine, so it is a 200).

use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::response::{IntoResponse, Response};
use http::{header, request::Parts};
use registry_core::{Violation, pointer};
use registry_types::Format;

use crate::http::auth::Reader;
use crate::http::etag::etag;
use crate::http::json::JsonBody;
use crate::http::params::{Id, ListParams};
use crate::http::problem::Problem;
use crate::http::responses::{BodyErrors, CallErrors, NotFound};
use crate::service::{CallCheck, CallRequest, Catalog, ToolSchema};

/// The `format` query parameter of `GET /tools/{id}/schema` (default `json-schema`);
/// every bad or unknown parameter is reported at `/<name>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaFormat(pub Format);

impl<S: Send + Sync> FromRequestParts<S> for SchemaFormat {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        let ListParams(pairs) = ListParams::from_request_parts(parts, state).await?;
        parse_format(&pairs).map(Self).map_err(Problem::validation)
    }
}

/// The format named by the query `pairs`; every problem with its `/<name>` path.
fn parse_format(pairs: &[(String, String)]) -> Result<Format, Vec<Violation>> {
    let mut format = None;
    let mut seen = false;
    let mut errors = Vec::new();
    for (key, value) in pairs {
        let path = pointer("", key);
        let message = if key != "format" {
            "unknown query parameter; only `format` is accepted".to_owned()
        } else if seen {
            "given more than once".to_owned()
        } else {
            seen = true;
            match value.parse::<Format>() {
                Ok(f) => {
                    format = Some(f);
                    continue;
                }
                Err(_) => {
                    let valid: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
                    format!("must be one of {} (got `{value}`)", valid.join(", "))
                }
            }
        };
        errors.push(Violation { path, message });
    }
    if errors.is_empty() { Ok(format.unwrap_or(Format::JsonSchema)) } else { Err(errors) }
}

/// A tool's functions compiled to one format, with what that format cannot express.
#[utoipa::path(get, path = "/tools/{id}/schema", tag = "tools",
    params(("id" = String, Path, description = "Tool id"),
        ("format" = Option<Format>, Query, description = "Target format (default `json-schema`)")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The compiled schema and its compatibility report", body = ToolSchema,
            headers(("ETag" = String, description = "\"<version>\" of the tool"))),
        CallErrors, NotFound,
    ))]
pub async fn tool_schema(
    State(catalog): State<Catalog>,
    _caller: Reader,
    Id(id): Id,
    SchemaFormat(format): SchemaFormat,
) -> Result<Response, Problem> {
    let schema = catalog.tool_schema(&id, format).await?;
    let version = schema.version;
    let mut response = Json(schema).into_response();
    response.headers_mut().insert(header::ETAG, etag(version));
    Ok(response)
}

/// Checks a call's arguments against one of the tool's functions. A bad call is a 200
/// with `valid: false` and every violation (paths into `arguments`); an unknown function
/// is a 400 at `/function` naming the tool's functions.
#[utoipa::path(post, path = "/tools/{id}/validate-call", tag = "tools", request_body = CallRequest,
    params(("id" = String, Path, description = "Tool id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{valid: true}`, or `{valid: false, errors}`", body = CallCheck),
        CallErrors, BodyErrors, NotFound,
    ))]
pub async fn validate_call(
    State(catalog): State<Catalog>,
    _caller: Reader,
    Id(id): Id,
    JsonBody(call): JsonBody<CallRequest>,
) -> Result<Response, Problem> {
    let check = catalog.validate_call(&id, &call).await?;
    Ok(Json(check).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn format_defaults_to_json_schema() {
        assert_eq!(parse_format(&[]), Ok(Format::JsonSchema));
        assert_eq!(parse_format(&pairs(&[("format", "mcp")])), Ok(Format::Mcp));
    }

    #[test]
    fn every_bad_parameter_is_reported() {
        let errors =
            parse_format(&pairs(&[("format", "xml"), ("x", "1"), ("format", "mcp")])).unwrap_err();
        let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["/format", "/x", "/format"]);
        assert!(errors[0].message.contains("json-schema, bedrock, openai, anthropic, mcp"));
        let errors = parse_format(&pairs(&[("format", "mcp"), ("format", "bedrock")])).unwrap_err();
        assert_eq!(errors[0].message, "given more than once");
    }
}
