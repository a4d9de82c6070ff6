//! A definition's history: every revision, and the difference between any two.

use axum::extract::{Path, Query};
use axum::response::Response;
use maud::{Markup, html};
use registry_api::Problem;
use registry_store::ListQuery;
use serde::Deserialize;
use serde_json::Value;

use crate::diff::diff;
use crate::html::url_component;
use crate::kind::Kind;
use crate::page;
use crate::parts::{badge, filters, json_text, link, table, time};
use crate::session::SignedIn;

/// Most revisions listed.
pub const MAX_REVISIONS: usize = 500;

/// The compare form's fields.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct HistoryForm {
    /// Older revision.
    pub from: Option<u64>,
    /// Newer revision.
    pub to: Option<u64>,
    /// Set after a save: the version written.
    pub saved: Option<u64>,
}

/// `GET /console/{agents|tools}/{id}/history`.
pub async fn show<R: Kind>(
    SignedIn(console, session): SignedIn,
    Path(id): Path<String>,
    Query(form): Query<HistoryForm>,
) -> Response {
    let mut revisions: Vec<R> = Vec::new();
    let mut query = ListQuery { limit: 100, ..ListQuery::default() };
    loop {
        match console.api.registry.catalog.versions::<R>(&id, &query).await {
            Ok(page) => {
                revisions.extend(page.items);
                match page.next_cursor {
                    Some(next) if revisions.len() < MAX_REVISIONS => query.cursor = Some(next),
                    _ => break,
                }
            }
            Err(e) => return page::problem(&session, &Problem::from(e)),
        }
    }
    let latest = revisions.last().map_or(0, R::version);
    let to = form.to.unwrap_or(latest);
    let from = form.from.unwrap_or(to.saturating_sub(1).max(1));
    let base = format!("/console/{}/{}", R::PATH, url_component(&id));
    let versions: Vec<String> = revisions.iter().rev().map(|r| r.version().to_string()).collect();
    let versions: Vec<&str> = versions.iter().map(String::as_str).collect();
    let picker = filters(
        &format!("{base}/history"),
        html! {
            (crate::parts::select("from", "from", "From version", &from.to_string(), &versions))
            (crate::parts::select("to", "to", "To version", &to.to_string(), &versions))
        },
        html! { button type="submit" { "Compare" } },
    );
    let find = |v: u64| revisions.iter().find(|r| r.version() == v);
    let body = html! {
        @if let Some(saved) = form.saved {
            div.notice role="status" #saved {
                @if form.from == Some(saved) {
                    "Nothing changed: the form matched version " (saved) "."
                }
                @else { "Saved as version " (saved) "." }
            }
        }
        p { (link(R::PATH, &id)) }
        (picker)
        h2 { "Changes from version " (from) " to " (to) }
        @match (find(from), find(to)) {
            (Some(a), Some(b)) => (changes(a, b, from, to)),
            _ => p.error role="alert" { "Pick two versions from the lists." },
        }
        h2 { "Revisions" }
        (table(
            "revisions",
            &["Version", "Updated", "By", "Status", "Compare"],
            html! { @for r in revisions.iter().rev() {
                @let v = r.version();
                @let server = r.server();
                tr {
                    td { (v) }
                    td { (server.updated_at.as_ref().map(time).unwrap_or_default()) }
                    td { (server.last_modified_by.as_deref().unwrap_or_default()) }
                    td { (badge(r.status().as_str())) }
                    td {
                        @if v > 1 {
                            a href={ (base) "/history?from=" (v - 1) "&to=" (v) } {
                                "with version " (v - 1)
                            }
                        }
                    }
                }
            } }))
    };
    let title = format!("History of {} {id}", R::NOUN);
    page::ok(&title, &session, body)
}

/// The members that differ between revisions `a` (version `from`) and `b` (`to`).
fn changes<R: Kind>(a: &R, b: &R, from: u64, to: u64) -> Markup {
    let json = |r: &R| serde_json::to_value(r).unwrap_or(Value::Null);
    let changes = diff(&json(a), &json(b));
    let text = |v: &Option<Value>| v.as_ref().map_or_else(|| "(absent)".to_owned(), json_text);
    html! {
        @if changes.is_empty() {
            p.muted #diff { "No difference." }
        } @else {
            (table(
                "diff",
                &["Member".to_owned(), format!("Version {from}"), format!("Version {to}")],
                html! {
                @for c in &changes { tr {
                    td { code { (c.path) } }
                    td.diff-before { (text(&c.before)) }
                    td.diff-after { (text(&c.after)) }
                } }
            }))
        }
    }
}
