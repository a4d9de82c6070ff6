//! `GET /tools/{name}/compare?from=&to=`: what changed between two releases of a tool,
//! each change breaking, additive or documentation, by JSON Pointer.

use axum::Json;
use axum::extract::{FromRequestParts, State};
use http::request::Parts;
use registry_core::{Violation, pointer};

use crate::http::auth::Reader;
use crate::http::params::{Id, ListParams};
use crate::http::problem::Problem;
use crate::http::responses::{CallErrors, NotFound};
use crate::service::{Catalog, Comparison};

/// The `from` and `to` query parameters (both required, each once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FromTo {
    /// The older version.
    pub from: String,
    /// The newer version.
    pub to: String,
}

impl<S: Send + Sync> FromRequestParts<S> for FromTo {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        let ListParams(pairs) = ListParams::from_request_parts(parts, state).await?;
        let (mut from, mut to, mut errors) = (None, None, Vec::new());
        for (key, value) in pairs {
            let slot = match key.as_str() {
                "from" => &mut from,
                "to" => &mut to,
                _ => {
                    errors.push(violation(
                        &key,
                        "unknown query parameter; `from` and `to` are accepted",
                    ));
                    continue;
                }
            };
            if slot.replace(value).is_some() {
                errors.push(violation(&key, "given more than once"));
            }
        }
        for (key, slot) in [("from", &from), ("to", &to)] {
            if slot.is_none() {
                errors.push(violation(key, "required: a version, e.g. `1.2.0`"));
            }
        }
        match (from, to) {
            (Some(from), Some(to)) if errors.is_empty() => Ok(Self { from, to }),
            _ => Err(Problem::validation(errors)),
        }
    }
}

fn violation(key: &str, message: &str) -> Violation {
    Violation { path: pointer("", key), message: message.to_owned() }
}

/// The changes from release `<name>@<from>` to `<name>@<to>`, each with its kind
/// (`breaking`, `additive`, `documentation`), and the smallest version bump they allow.
#[utoipa::path(get, path = "/tools/{id}/compare", tag = "tools",
    params(("id" = String, Path, description = "Tool name (the part of release ids before `@`)"),
        ("from" = String, Query, pattern = "^(0|[1-9][0-9]{0,8})(\\.(0|[1-9][0-9]{0,8})){0,2}$", description = "Older version, e.g. `1.2.0` (`1` and `1.2` are completed)"),
        ("to" = String, Query, pattern = "^(0|[1-9][0-9]{0,8})(\\.(0|[1-9][0-9]{0,8})){0,2}$", description = "Newer version, e.g. `1.3.0`")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Every change between the two releases", body = Comparison),
        CallErrors, NotFound,
    ))]
pub async fn compare_releases(
    State(catalog): State<Catalog>,
    _caller: Reader,
    Id(name): Id,
    FromTo { from, to }: FromTo,
) -> Result<Json<Comparison>, Problem> {
    Ok(Json(catalog.compare_releases(&name, &from, &to).await?))
}
