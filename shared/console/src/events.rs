//! The audit events: every state change, with who made it, filtered by kind, id,
//! actor and action. The service pages oldest first after a sequence number; "Newer"
//! continues after the page, "Older" goes back along the pages already seen.

use axum::extract::{Query, State};
use axum::response::Response;
use registry_api::Problem;
use registry_core::Kind;
use registry_store::{Action, EventQuery, MAX_EVENT_SEQ, parse_event_seq};
use serde::Deserialize;

use crate::Console;
use crate::html::{Html, url_component};
use crate::page::{self, link};
use crate::session::SignedIn;

/// Events per page.
pub const PAGE: u32 = 50;

/// Pages remembered for "Older".
const MAX_BACK: usize = 50;

/// The events page's query.
#[derive(Debug, Default, Deserialize)]
pub struct EventsForm {
    /// `agent`, `tool` or "".
    #[serde(default)]
    pub kind: String,
    /// A definition id.
    #[serde(default)]
    pub id: String,
    /// A principal.
    #[serde(default)]
    pub actor: String,
    /// An action such as `patch` or `proposal.applied`.
    #[serde(default)]
    pub action: String,
    /// The sequence number the page starts after (empty: from the first event); read
    /// with [`parse_event_seq`], anything else is refused with a 400 page.
    #[serde(default)]
    pub after: String,
    /// The `after` of the pages before, comma-separated (for "Older").
    #[serde(default)]
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
    State(console): State<Console>,
    SignedIn(session): SignedIn,
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
    let mut h = Html::new();
    let mut actions = vec![""];
    actions.extend(Action::ALL.iter().map(|a| a.as_str()));
    h.raw("<form class=\"filters\" method=\"get\" action=\"/console/events\"><div>")
        .raw("<label for=\"kind\">Kind</label><select id=\"kind\" name=\"kind\">");
    crate::lists::options(&mut h, &form.kind, &["", "agent", "tool"]);
    h.raw("</select></div><div><label for=\"id\">Id</label><input type=\"text\" id=\"id\" ")
        .raw("name=\"id\" value=\"")
        .text(&form.id)
        .raw("\"></div><div><label for=\"actor\">Actor</label><input type=\"text\" ")
        .raw("id=\"actor\" name=\"actor\" value=\"")
        .text(&form.actor)
        .raw("\"></div><div><label for=\"action\">Action</label>")
        .raw("<select id=\"action\" name=\"action\">");
    crate::lists::options(&mut h, &form.action, &actions);
    h.raw("</select></div><div><button type=\"submit\" id=\"filter\">Filter</button></div></form>");
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
    if page.events.is_empty() {
        h.raw("<p class=\"muted\" id=\"empty\">No events match these filters here.</p>");
    } else {
        h.raw("<div class=\"scroll\"><table id=\"events\"><thead><tr><th scope=\"col\">#</th>")
            .raw("<th scope=\"col\">Time</th><th scope=\"col\">Actor</th><th scope=\"col\">")
            .raw("Action</th><th scope=\"col\">Definition</th><th scope=\"col\">Versions</th>")
            .raw(
                "<th scope=\"col\">Changed</th><th scope=\"col\">Proposal</th></tr></thead><tbody>",
            );
        for e in &page.events {
            h.raw("<tr><td>").num(e.seq).raw("</td><td>").text(&e.time.to_rfc3339());
            h.el("</td><td class=\"actor\">", &e.actor, "</td>")
                .el("<td class=\"action\">", e.action.as_str(), "</td><td>")
                .text(e.kind.as_str())
                .raw(" ");
            link(&mut h, if e.kind == Kind::Agent { "agents" } else { "tools" }, &e.id);
            h.raw("</td><td>");
            if let Some(b) = e.version_before {
                h.num(b);
            }
            h.raw(" \u{2192} ");
            if let Some(a) = e.version_after {
                h.num(a);
            }
            h.el("</td><td><code>", &e.changed.join(", "), "</code></td><td>");
            if let Some(p) = &e.proposal {
                h.raw("<a href=\"/console/proposals/")
                    .text(&url_component(p))
                    .raw("\">")
                    .text(p)
                    .raw("</a>");
            }
            h.raw("</td></tr>");
        }
        h.raw("</tbody></table></div>");
    }
    let filters = form.filters();
    let stack: Vec<&str> = form.back.split(',').filter(|s| parse_event_seq(s).is_some()).collect();
    h.raw("<nav class=\"pager\" aria-label=\"Pages\">");
    if let Some((previous, before)) = stack.split_last() {
        h.raw("<a id=\"older\" href=\"/console/events?")
            .text(&filters)
            .raw("&after=")
            .text(previous)
            .raw("&back=")
            .text(&url_component(&before.join(",")))
            .raw("\">Older</a> ");
    }
    if page.events.len() == PAGE as usize {
        let after = after.to_string();
        let mut seen = stack.clone();
        seen.push(&after);
        let skip = seen.len().saturating_sub(MAX_BACK);
        h.raw("<a id=\"newer\" href=\"/console/events?")
            .text(&filters)
            .raw("&after=")
            .num(page.last)
            .raw("&back=")
            .text(&url_component(&seen[skip..].join(",")))
            .raw("\">Newer</a>");
    }
    h.raw("</nav>");
    page::ok("Audit events", &session, h)
}
