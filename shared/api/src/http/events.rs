//! `GET /events`: the audit event stream, oldest first, with a resumable cursor.

use axum::Json;
use axum::extract::{FromRequestParts, State};
use http::request::Parts;
use registry_core::{Kind, Violation, pointer};
use registry_store::{
    Action, Event, EventQuery, MAX_EVENT_PAGE, decode_event_cursor, encode_event_cursor,
};
use serde::Serialize;

use crate::http::auth::Reader;
use crate::http::params::ListParams;
use crate::http::problem::Problem;
use crate::http::responses::CallErrors;
use crate::service::Catalog;

/// One page of events.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventPageBody {
    /// The events, oldest first.
    pub items: Vec<Event>,
    /// Where to continue: pass it as `after` to get the events that follow. Always
    /// present; an empty page returns the cursor to poll again from.
    pub cursor: String,
}

/// The parsed query of `GET /events`.
#[derive(Debug, Clone)]
pub struct EventParams(pub EventQuery);

fn violation(key: &str, message: &str) -> Violation {
    Violation { path: pointer("", key), message: message.to_owned() }
}

impl<S: Send + Sync> FromRequestParts<S> for EventParams {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        let ListParams(pairs) = ListParams::from_request_parts(parts, state).await?;
        let mut query = EventQuery { limit: 100, ..EventQuery::default() };
        let (mut errors, mut seen) = (Vec::new(), Vec::<String>::new());
        for (key, value) in &pairs {
            if seen.contains(key) {
                errors.push(violation(key, "given more than once"));
                continue;
            }
            seen.push(key.clone());
            match key.as_str() {
                "after" => match decode_event_cursor(value) {
                    Ok(seq) => query.after = seq,
                    Err(_) => errors.push(violation(
                        key,
                        "invalid cursor: pass the `cursor` of a previous page",
                    )),
                },
                "limit" => match value.parse::<u32>() {
                    Ok(n) if (1..=MAX_EVENT_PAGE).contains(&n) => query.limit = n,
                    _ => errors.push(violation(key, "must be an integer from 1 to 1000")),
                },
                "kind" => match value.as_str() {
                    "agent" => query.kind = Some(Kind::Agent),
                    "tool" => query.kind = Some(Kind::Tool),
                    _ => errors.push(violation(key, "must be `agent` or `tool`")),
                },
                "id" => query.id = Some(value.clone()),
                "actor" => query.actor = Some(value.clone()),
                "action" => match Action::parse(value) {
                    Some(a) => query.action = Some(a),
                    None => errors.push(violation(
                        key,
                        "unknown action (create, replace, patch, delete, lifecycle, publish, \
                         unpublish, proposal.opened, proposal.approved, proposal.rejected, \
                         proposal.cancelled, proposal.applied, proposal.stale)",
                    )),
                },
                _ => errors.push(violation(key, "unknown query parameter")),
            }
        }
        if errors.is_empty() { Ok(Self(query)) } else { Err(Problem::validation(errors)) }
    }
}

/// The audit events after `after`, oldest first: every state change, recorded in the
/// same transaction as the change.
#[utoipa::path(get, path = "/events", tag = "events",
    params(("after" = Option<String>, Query, description = "The `cursor` of a previous page (absent: from the first event)"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 1000, description = "Page size, 1..1000 (default 100)"),
        ("kind" = Option<String>, Query, pattern = "^(agent|tool)$", description = "`agent` or `tool`"),
        ("id" = Option<String>, Query, description = "Definition id"),
        ("actor" = Option<String>, Query, description = "Principal"),
        ("action" = Option<String>, Query, pattern = "^(create|replace|patch|delete|lifecycle|publish|unpublish|proposal\\.(opened|approved|rejected|cancelled|applied|stale))$", description = "Action, e.g. `patch` or `proposal.applied`")),
    security(("bearer" = [])),
    responses((status = 200, description = "One page of events", body = EventPageBody), CallErrors))]
pub async fn list_events(
    State(catalog): State<Catalog>,
    _caller: Reader,
    EventParams(query): EventParams,
) -> Result<Json<EventPageBody>, Problem> {
    let page = catalog.events(&query).await?;
    Ok(Json(EventPageBody { items: page.events, cursor: encode_event_cursor(page.last) }))
}
