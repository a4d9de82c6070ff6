//! A definition's history: every revision, and the difference between any two.

use axum::extract::{Path, Query, State};
use axum::response::Response;
use registry_api::Problem;
use registry_store::ListQuery;
use serde::Deserialize;
use serde_json::Value;

use crate::Console;
use crate::diff::diff;
use crate::html::{Html, url_component};
use crate::kind::Kind;
use crate::page::{self, json_text, link, status_of, str_of};
use crate::session::SignedIn;

/// Most revisions listed.
pub const MAX_REVISIONS: usize = 500;

/// The compare form's fields.
#[derive(Debug, Default, Deserialize)]
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
    State(console): State<Console>,
    SignedIn(session): SignedIn,
    Path(id): Path<String>,
    Query(form): Query<HistoryForm>,
) -> Response {
    let mut revisions: Vec<Value> = Vec::new();
    let mut query = ListQuery { limit: 100, ..ListQuery::default() };
    loop {
        match console.api.registry.catalog.versions::<R>(&id, &query).await {
            Ok(page) => {
                revisions
                    .extend(page.items.iter().map(|r| serde_json::to_value(r).unwrap_or_default()));
                match page.next_cursor {
                    Some(next) if revisions.len() < MAX_REVISIONS => query.cursor = Some(next),
                    _ => break,
                }
            }
            Err(e) => return page::problem(&session, &Problem::from(e)),
        }
    }
    let version = |r: &Value| r.get("version").and_then(Value::as_u64).unwrap_or(0);
    let latest = revisions.last().map_or(0, version);
    let to = form.to.unwrap_or(latest);
    let from = form.from.unwrap_or(to.saturating_sub(1).max(1));
    let id_url = url_component(&id);

    let mut h = Html::new();
    if let Some(saved) = form.saved {
        h.raw("<div class=\"notice\" role=\"status\" id=\"saved\">");
        if form.from == Some(saved) {
            h.raw("Nothing changed: the form matched version ").num(saved).raw(".");
        } else {
            h.raw("Saved as version ").num(saved).raw(".");
        }
        h.raw("</div>");
    }
    h.raw("<p>");
    link(&mut h, R::PATH, &id);
    h.raw("</p>");

    h.raw("<form class=\"filters\" method=\"get\" action=\"/console/")
        .raw(R::PATH)
        .raw("/")
        .text(&id_url)
        .raw("/history\"><div><label for=\"from\">From version</label><select id=\"from\" name=\"from\">");
    version_options(&mut h, &revisions, from);
    h.raw("</select></div><div><label for=\"to\">To version</label><select id=\"to\" name=\"to\">");
    version_options(&mut h, &revisions, to);
    h.raw("</select></div><div><button type=\"submit\">Compare</button></div></form>");

    let find = |v: u64| revisions.iter().find(|r| version(r) == v);
    h.raw("<h2>Changes from version ").num(from).raw(" to ").num(to).raw("</h2>");
    match (find(from), find(to)) {
        (Some(a), Some(b)) => {
            let changes = diff(a, b);
            if changes.is_empty() {
                h.raw("<p class=\"muted\" id=\"diff\">No difference.</p>");
            } else {
                h.raw("<div class=\"scroll\"><table id=\"diff\"><thead><tr><th scope=\"col\">")
                    .raw("Member</th><th scope=\"col\">Version ")
                    .num(from)
                    .raw("</th><th scope=\"col\">Version ")
                    .num(to)
                    .raw("</th></tr></thead><tbody>");
                for c in changes {
                    h.el("<tr><td><code>", &c.path, "</code></td>")
                        .el(
                            "<td class=\"diff-before\">",
                            &c.before.as_ref().map(json_text).unwrap_or_else(|| "(absent)".into()),
                            "</td>",
                        )
                        .el(
                            "<td class=\"diff-after\">",
                            &c.after.as_ref().map(json_text).unwrap_or_else(|| "(absent)".into()),
                            "</td></tr>",
                        );
                }
                h.raw("</tbody></table></div>");
            }
        }
        _ => {
            h.raw("<p class=\"error\" role=\"alert\">Pick two versions from the lists.</p>");
        }
    }

    h.raw("<h2>Revisions</h2><div class=\"scroll\"><table id=\"revisions\"><thead><tr>")
        .raw("<th scope=\"col\">Version</th><th scope=\"col\">Updated</th><th scope=\"col\">")
        .raw("By</th><th scope=\"col\">Status</th><th scope=\"col\">Compare</th></tr></thead><tbody>");
    for r in revisions.iter().rev() {
        let v = version(r);
        h.raw("<tr><td>").num(v).el("</td><td>", str_of(r, "updatedAt"), "</td>").el(
            "<td>",
            str_of(r, "lastModifiedBy"),
            "</td><td>",
        );
        page::badge(&mut h, status_of(r));
        h.raw("</td><td>");
        if v > 1 {
            h.raw("<a href=\"/console/")
                .raw(R::PATH)
                .raw("/")
                .text(&id_url)
                .raw("/history?from=")
                .num(v - 1)
                .raw("&amp;to=")
                .num(v)
                .raw("\">with version ")
                .num(v - 1)
                .raw("</a>");
        }
        h.raw("</td></tr>");
    }
    h.raw("</tbody></table></div>");
    let title = format!("History of {} {id}", R::NOUN);
    page::ok(&title, &session, h)
}

fn version_options(h: &mut Html, revisions: &[Value], selected: u64) {
    for r in revisions.iter().rev() {
        let v = r.get("version").and_then(Value::as_u64).unwrap_or(0);
        h.raw("<option value=\"").num(v).raw("\"");
        if v == selected {
            h.raw(" selected");
        }
        h.raw(">").num(v).raw("</option>");
    }
}
