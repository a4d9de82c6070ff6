//! Release compare: what changed between two releases of a tool, each change
//! breaking, additive or documentation, and the smallest version bump allowed.

use axum::extract::{Path, Query};
use axum::response::Response;
use maud::html;
use registry_api::Problem;
use serde::Deserialize;

use crate::detail::releases;
use crate::html::url_component;
use crate::page::{self, problem_box};
use crate::parts::{badge, filters, link, select, table, wire};
use crate::session::SignedIn;

/// The compare form's fields: two versions of the tool.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct CompareForm {
    /// The older version (`1.0.0`).
    pub from: String,
    /// The newer version.
    pub to: String,
}

/// `GET /console/tools/{name}/compare?from=&to=`.
pub async fn show(
    SignedIn(console, session): SignedIn,
    Path(name): Path<String>,
    Query(form): Query<CompareForm>,
) -> Response {
    let all = releases(&console, &name).await;
    let versions: Vec<&str> =
        all.iter().filter_map(|r| r.tool_id.split_once('@').map(|(_, v)| v)).collect();
    if versions.is_empty() {
        let problem = Problem::not_found(format!("no live release of tool `{name}`"));
        return page::problem(&session, &problem);
    }
    let newest = versions.last().copied().unwrap_or_default();
    let before = versions.len().checked_sub(2).and_then(|i| versions.get(i)).copied();
    let to = if form.to.is_empty() { newest } else { form.to.as_str() };
    let from = if form.from.is_empty() { before.unwrap_or(newest) } else { form.from.as_str() };
    let picker = filters(
        &format!("/console/tools/{}/compare", url_component(&name)),
        html! {
            (select("from", "from", "From release", from, &versions))
            (select("to", "to", "To release", to, &versions))
        },
        html! { button type="submit" { "Compare" } },
    );
    let answer = console.api.registry.catalog.compare_releases(&name, from, to).await;
    let body = html! {
        (picker)
        @match answer {
            Ok(c) => {
                p #verdict {
                    (link("tools", &c.from)) " to " (link("tools", &c.to)) ": "
                    @match &c.severity {
                        Some(severity) => { (badge(&wire(severity))) " changes; " }
                        None => "no change to the interface; ",
                    }
                    "the smallest version bump allowed is " strong { (c.required_bump) } "."
                }
                @if !c.changes.is_empty() {
                    (table(
                        "changes",
                        &["Where", "Kind", "What"],
                        html! { @for change in &c.changes { tr {
                            td { code { (change.path) } }
                            td { (badge(&wire(&change.kind))) }
                            td { (change.message) }
                        } } }))
                }
            }
            Err(e) => (problem_box(None, &Problem::from(e))),
        }
    };
    page::ok(&format!("Compare releases of {name}"), &session, body)
}
