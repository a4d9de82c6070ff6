//! The documented routes of agents and tools: one set, expanded for each kind.
//!
//! `#[utoipa::path]` takes no type parameter, so `resource_routes!` writes each
//! kind's operations (paths, operation ids, summaries, parameters) around the generic
//! handlers of [`crate::http::resource`]: a module per kind, [`agents`] and [`tools`],
//! each with `list`, `create`, `get`, `put`, `patch`, `delete`, `versions` and
//! `version`, and `routes` adding them all to a router.

/// Writes the module `$module` of the routes of `$kind` under `/$plural`: `$item` and
/// `$Item` name one definition, `$an` and `$An` with its article; `$list_params`
/// documents the query of a list; `$write_params`, if any, the query of a create or
/// replace.
macro_rules! resource_routes {
    ($module:ident, $kind:ident, $plural:tt, $item:tt, $Item:tt, $an:tt, $An:tt, $list_params:ident $(, $write_params:ident)?) => {
        #[doc = concat!("The routes of ", $plural, " (`/", $plural, "`).")]
        pub mod $module {
            use axum::extract::State;
            use axum::response::Response;
            use registry_core::$kind;
            use utoipa_axum::router::OpenApiRouter;
            use utoipa_axum::routes;

            use crate::http::AppState;
            use crate::http::auth::{Admin, Editor, Reader};
            use crate::http::etag::IfMatch;
            use crate::http::json::{JsonBody, MergePatchBody};
            use crate::http::params::{
                Id, IdVersion, ListParams, $list_params, PageParamsDoc, $($write_params)?
            };
            use crate::http::problem::Problem;
            use crate::http::proposals::ProposalNote;
            use crate::http::resource::{self, PageBody};
            use crate::service::{Catalog, ProposalView};
            use crate::http::responses::{
                BodyErrors, CallErrors, Conflict, Forbidden, NotFound, VersionMismatch,
                VersionRequired,
            };
            use crate::http::routed::Routed;

            /// The query of a create or replace.
            type WriteQuery = <$kind as Routed>::WriteQuery;

            #[doc = concat!("Adds the routes of ", $plural, " to `router`.")]
            pub fn routes(router: OpenApiRouter<AppState>) -> OpenApiRouter<AppState> {
                router
                    .routes(routes!(list, create))
                    .routes(routes!(get, put, patch, delete))
                    .routes(routes!(versions))
                    .routes(routes!(version))
            }

            #[doc = concat!("List ", $plural, ".")]
            #[utoipa::path(get, path = concat!("/", $plural), tag = $plural,
                operation_id = concat!("list_", $plural), summary = concat!("List ", $plural, "."),
                params($list_params),
                security(("bearer" = [])),
                responses(
                    (status = 200, description = concat!("One page of ", $plural), body = PageBody<$kind>),
                    CallErrors,
                ))]
            pub async fn list(
                catalog: State<Catalog>,
                caller: Reader,
                params: ListParams,
            ) -> Result<Response, Problem> {
                resource::list::<$kind>(catalog, caller, params).await
            }

            #[doc = concat!("Create ", $an, " (its id is generated when omitted).")]
            #[utoipa::path(post, path = concat!("/", $plural), tag = $plural, request_body = $kind,
                operation_id = concat!("create_", $item),
                summary = concat!("Create ", $an, " (its id is generated when omitted)."),
                params(("Proposal-Note" = Option<String>, Header, description = "Where review applies: the note of the proposal this write becomes") $(, $write_params)?),
                security(("bearer" = [])),
                responses(
                    (status = 201, description = "Created", body = $kind,
                        headers(("ETag" = String, description = "\"<version>\""), ("Location" = String))),
                    (status = 202, description = "Review required: the change became a proposal", body = ProposalView,
                        headers(("Location" = String, description = "`/proposals/{id}`"))),
                    CallErrors, BodyErrors, Forbidden, Conflict,
                ))]
            pub async fn create(
                state: State<AppState>,
                catalog: State<Catalog>,
                caller: Editor,
                query: WriteQuery,
                note: ProposalNote,
                body: JsonBody<$kind>,
            ) -> Result<Response, Problem> {
                resource::create::<$kind>(state, catalog, caller, query, note, body).await
            }

            #[doc = concat!("Get ", $an, ".")]
            #[utoipa::path(get, path = concat!("/", $plural, "/{id}"), tag = $plural,
                operation_id = concat!("get_", $item), summary = concat!("Get ", $an, "."),
                params(("id" = String, Path, description = concat!($Item, " id"))),
                security(("bearer" = [])),
                responses(
                    (status = 200, description = concat!("The ", $item), body = $kind, headers(("ETag" = String))),
                    CallErrors, NotFound,
                ))]
            pub async fn get(catalog: State<Catalog>, caller: Reader, id: Id) -> Result<Response, Problem> {
                resource::get::<$kind>(catalog, caller, id).await
            }

            #[doc = concat!("Create or replace ", $an, " (idempotent; `If-Match` optional).")]
            #[utoipa::path(put, path = concat!("/", $plural, "/{id}"), tag = $plural, request_body = $kind,
                operation_id = concat!("put_", $item),
                summary = concat!("Create or replace ", $an, " (idempotent; `If-Match` optional)."),
                params(("id" = String, Path, description = concat!($Item, " id")),
                    ("If-Match" = Option<String>, Header, description = "Expected version, `\"<version>\"`"),
                    ("Proposal-Note" = Option<String>, Header, description = "Where review applies: the note of the proposal this write becomes")
                    $(, $write_params)?),
                security(("bearer" = [])),
                responses(
                    (status = 200, description = "Replaced, or unchanged (same version)", body = $kind, headers(("ETag" = String))),
                    (status = 201, description = "Created", body = $kind, headers(("ETag" = String), ("Location" = String))),
                    (status = 202, description = "Review required: the change became a proposal", body = ProposalView,
                        headers(("Location" = String, description = "`/proposals/{id}`"))),
                    CallErrors, BodyErrors, Forbidden, Conflict, VersionMismatch,
                ))]
            pub async fn put(
                state: State<AppState>,
                caller: Editor,
                id: Id,
                if_match: IfMatch,
                query: WriteQuery,
                note: ProposalNote,
                body: JsonBody<$kind>,
            ) -> Result<Response, Problem> {
                resource::put::<$kind>(state, caller, id, if_match, query, note, body).await
            }

            #[doc = concat!("Change ", $an, " with a JSON Merge Patch (RFC 7396).")]
            #[utoipa::path(patch, path = concat!("/", $plural, "/{id}"), tag = $plural,
                operation_id = concat!("patch_", $item),
                summary = concat!("Change ", $an, " with a JSON Merge Patch (RFC 7396)."),
                request_body(content = Object, content_type = "application/merge-patch+json", description = "JSON Merge Patch"),
                params(("id" = String, Path, description = concat!($Item, " id")),
                    ("If-Match" = Option<String>, Header, description = "Expected version (or `version` in the body); required"),
                    ("Proposal-Note" = Option<String>, Header, description = "Where review applies: the note of the proposal this write becomes")),
                security(("bearer" = [])),
                responses(
                    (status = 200, description = "Changed", body = $kind, headers(("ETag" = String))),
                    (status = 202, description = "Review required: the change became a proposal", body = ProposalView,
                        headers(("Location" = String, description = "`/proposals/{id}`"))),
                    CallErrors, BodyErrors, Forbidden, NotFound, Conflict, VersionMismatch, VersionRequired,
                ))]
            pub async fn patch(
                state: State<AppState>,
                catalog: State<Catalog>,
                caller: Editor,
                id: Id,
                if_match: IfMatch,
                note: ProposalNote,
                body: MergePatchBody,
            ) -> Result<Response, Problem> {
                resource::patch::<$kind>(state, catalog, caller, id, if_match, note, body).await
            }

            #[doc = concat!("Delete ", $an, " (admin; `If-Match` required).")]
            #[utoipa::path(delete, path = concat!("/", $plural, "/{id}"), tag = $plural,
                operation_id = concat!("delete_", $item),
                summary = concat!("Delete ", $an, " (admin; `If-Match` required)."),
                params(("id" = String, Path, description = concat!($Item, " id")),
                    ("If-Match" = String, Header, description = "Expected version, `\"<version>\"`")),
                security(("bearer" = [])),
                responses(
                    (status = 204, description = "Deleted"),
                    CallErrors, Forbidden, NotFound, Conflict, VersionMismatch, VersionRequired,
                ))]
            pub async fn delete(
                state: State<AppState>,
                catalog: State<Catalog>,
                caller: Admin,
                id: Id,
                if_match: IfMatch,
            ) -> Result<Response, Problem> {
                resource::delete::<$kind>(state, catalog, caller, id, if_match).await
            }

            #[doc = concat!($An, "'s version history, oldest first.")]
            #[utoipa::path(get, path = concat!("/", $plural, "/{id}/versions"), tag = $plural,
                operation_id = concat!($item, "_versions"),
                summary = concat!($An, "'s version history, oldest first."),
                params(("id" = String, Path, description = concat!($Item, " id")), PageParamsDoc),
                security(("bearer" = [])),
                responses(
                    (status = 200, description = "One page of versions", body = PageBody<$kind>),
                    CallErrors, NotFound,
                ))]
            pub async fn versions(
                catalog: State<Catalog>,
                caller: Reader,
                id: Id,
                params: ListParams,
            ) -> Result<Response, Problem> {
                resource::versions::<$kind>(catalog, caller, id, params).await
            }

            #[doc = concat!("One immutable version of ", $an, ".")]
            #[utoipa::path(get, path = concat!("/", $plural, "/{id}/versions/{v}"), tag = $plural,
                operation_id = concat!($item, "_version"),
                summary = concat!("One immutable version of ", $an, "."),
                params(("id" = String, Path, description = concat!($Item, " id")),
                    ("v" = u64, Path, minimum = 1, description = "Version")),
                security(("bearer" = [])),
                responses(
                    (status = 200, description = "The snapshot", body = $kind, headers(("ETag" = String))),
                    CallErrors, NotFound,
                ))]
            pub async fn version(
                catalog: State<Catalog>,
                caller: Reader,
                id: IdVersion,
            ) -> Result<Response, Problem> {
                resource::version::<$kind>(catalog, caller, id).await
            }
        }
    };
}

resource_routes!(
    agents,
    AgentDefinition,
    "agents",
    "agent",
    "Agent",
    "an agent",
    "An agent",
    AgentListParamsDoc
);
resource_routes!(
    tools,
    ToolDefinition,
    "tools",
    "tool",
    "Tool",
    "a tool",
    "A tool",
    ToolListParamsDoc,
    VerifyParamsDoc
);
