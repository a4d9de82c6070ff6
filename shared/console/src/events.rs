//! The audit events: every state change, with who made it, filtered by kind, id,
//! actor and action. The service pages oldest first after a sequence number; "Newer"
//! continues after the page, "Older" goes back along the pages already seen.

use axum::extract::Query;
use axum::response::Response;
use registry_api::Problem;
use registry_core::Kind;
use registry_store::{Action, EventQuery, MAX_EVENT_SEQ, parse_event_seq};
use serde::Deserialize;

use maud::{Markup, html};
use registry_store::EventPage;

use crate::html::url_component;
use crate::page;
use crate::parts::{filters, kind_path, link, select, table, text_field, time};
use crate::session::SignedIn;

/// Events per page.
pub const PAGE: u32 = 50;

/// Pages remembered for "Older".
const MAX_BACK: usize = 50;

/// The events page's query.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct EventsForm {
    /// `agent`, `tool` or "".
    pub kind: String,
    /// A definition id.
    pub id: String,
    /// A principal.
    pub actor: String,
    /// An action such as `patch` or `proposal.applied`.
    pub action: String,
    /// The sequence number the page starts after (empty: from the first event); read
    /// with [`parse_event_seq`], anything else is refused with a 400 page.
    pub after: String,
    /// The `after` of the pages before, comma-separated (for "Older").
    pub back: String,
}

impl EventsForm {
    /// The filters as a query string (escaped for an attribute by the caller).
    fn filters(&self) -> String {
        format!(
            "kind={}&id={}&actor={}&action={}",
            url_component(&self.kind),
            url_component(&self.id),
            url_component(&self.actor),
            url_component(&self.action)
        )
    }
}

/// `GET /console/events`.
pub async fn list(
    SignedIn(console, session): SignedIn,
    Query(form): Query<EventsForm>,
) -> Response {
    let after = match form.after.as_str() {
        "" => 0,
        text => match parse_event_seq(text) {
            Some(seq) => seq,
            None => {
                let message = format!(
                    "must be an event sequence number from 0 to {MAX_EVENT_SEQ}, as the \
                     Newer and Older links give"
                );
                return page::problem(&session, &Problem::bad_request("/after", message));
            }
        },
    };
    let mut actions = vec![""];
    actions.extend(Action::ALL.iter().map(|a| a.as_str()));
    let picker = filters(
        "/console/events",
        html! {
            (select("kind", "kind", "Kind", &form.kind, &["", "agent", "tool"]))
            (text_field("id", "Id", &form.id))
            (text_field("actor", "Actor", &form.actor))
            (select("action", "action", "Action", &form.action, &actions))
        },
        html! { button #filter type="submit" { "Filter" } },
    );
    let kind = match form.kind.as_str() {
        "agent" => Some(Kind::Agent),
        "tool" => Some(Kind::Tool),
        _ => None,
    };
    let some = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
    let query = EventQuery {
        after,
        limit: PAGE,
        kind,
        id: some(&form.id),
        actor: some(&form.actor),
        action: Action::parse(&form.action),
    };
    let page = match console.api.registry.catalog.events(&query).await {
        Ok(page) => page,
        Err(e) => return page::problem(&session, &Problem::from(e)),
    };
    let body = html! { (picker) (events(&page)) (pager(&form, after, &page)) };
    page::ok("Audit events", &session, body)
}

/// The events of a page, or that none match.
fn events(page: &EventPage) -> Markup {
    html! {
        @if page.events.is_empty() {
            p.muted #empty { "No events match these filters here." }
        } @else {
            (table(
                "events",
                &["#", "Time", "Actor", "Action", "Definition", "Versions", "Changed", "Proposal"],
                html! { @for e in &page.events { tr {
                    td { (e.seq) }
                    td { (time(&e.time)) }
                    td.actor { (e.actor) }
                    td.action { (e.action.as_str()) }
                    td { (e.kind.as_str()) " " (link(kind_path(e.kind), &e.id)) }
                    td {
                        @if let Some(b) = e.version_before { (b) }
                        " \u{2192} "
                        @if let Some(a) = e.version_after { (a) }
                    }
                    td { code { (e.changed.join(", ")) } }
                    td {
                        @if let Some(p) = &e.proposal {
                            a href={ "/console/proposals/" (url_component(p)) } { (p) }
                        }
                    }
                } } }))
        }
    }
}

/// "Older" back along the pages seen, "Newer" after a full page.
fn pager(form: &EventsForm, after: u64, page: &EventPage) -> Markup {
    let filters = form.filters();
    let stack: Vec<&str> = form.back.split(',').filter(|s| parse_event_seq(s).is_some()).collect();
    let older = stack.split_last().map(|(previous, before)| {
        format!(
            "/console/events?{filters}&after={previous}&back={}",
            url_component(&before.join(","))
        )
    });
    let newer = (page.events.len() == PAGE as usize).then(|| {
        let after = after.to_string();
        let mut seen = stack.clone();
        seen.push(&after);
        let skip = seen.len().saturating_sub(MAX_BACK);
        format!(
            "/console/events?{filters}&after={}&back={}",
            page.last,
            url_component(&seen[skip..].join(","))
        )
    });
    html! {
        nav.pager aria-label="Pages" {
            @if let Some(older) = older { a #older href=(older) { "Older" } " " }
            @if let Some(newer) = newer { a #newer href=(newer) { "Newer" } }
        }
    }
}
