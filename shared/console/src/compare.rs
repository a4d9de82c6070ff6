//! Release compare: what changed between two releases of a tool, each change
//! breaking, additive or documentation, and the smallest version bump allowed.

use axum::extract::{Path, Query, State};
use axum::response::Response;
use registry_api::Problem;
use serde::Deserialize;
use serde_json::Value;

use crate::Console;
use crate::detail::releases;
use crate::html::{Html, url_component};
use crate::page::{self, badge, link, str_of};
use crate::session::SignedIn;

/// The compare form's fields: two versions of the tool.
#[derive(Debug, Default, Deserialize)]
pub struct CompareForm {
    /// The older version (`1.0.0`).
    #[serde(default)]
    pub from: String,
    /// The newer version.
    #[serde(default)]
    pub to: String,
}

/// `GET /console/tools/{name}/compare?from=&to=`.
pub async fn show(
    State(console): State<Console>,
    SignedIn(session): SignedIn,
    Path(name): Path<String>,
    Query(form): Query<CompareForm>,
) -> Response {
    let all = releases(&console, &name).await;
    let versions: Vec<&str> =
        all.iter().filter_map(|r| r.tool_id.split_once('@').map(|(_, v)| v)).collect();
    let newest = versions.last().copied().unwrap_or("");
    let before = versions.len().checked_sub(2).and_then(|i| versions.get(i)).copied();
    let to = if form.to.is_empty() { newest } else { form.to.as_str() };
    let from = if form.from.is_empty() { before.unwrap_or(newest) } else { form.from.as_str() };

    let mut h = Html::new();
    h.raw("<form class=\"filters\" method=\"get\" action=\"/console/tools/")
        .text(&url_component(&name))
        .raw("/compare\"><div><label for=\"from\">From release</label><select id=\"from\" name=\"from\">");
    crate::lists::options(&mut h, from, &versions);
    h.raw("</select></div><div><label for=\"to\">To release</label><select id=\"to\" name=\"to\">");
    crate::lists::options(&mut h, to, &versions);
    h.raw("</select></div><div><button type=\"submit\">Compare</button></div></form>");
    if versions.is_empty() {
        let problem = Problem::not_found(format!("no live release of tool `{name}`"));
        return page::problem(&session, &problem);
    }
    match console.api.registry.catalog.compare_releases(&name, from, to).await {
        Ok(comparison) => {
            let v = serde_json::to_value(&comparison).unwrap_or(Value::Null);
            h.raw("<p id=\"verdict\">");
            link(&mut h, "tools", str_of(&v, "from"));
            h.raw(" to ");
            link(&mut h, "tools", str_of(&v, "to"));
            h.raw(": ");
            match v.get("severity").and_then(Value::as_str) {
                Some(severity) => {
                    badge(&mut h, severity);
                    h.raw(" changes; the smallest version bump allowed is ");
                }
                None => {
                    h.raw("no change to the interface; the smallest version bump allowed is ");
                }
            }
            h.el("<strong>", str_of(&v, "requiredBump"), "</strong>.</p>");
            let changes = v.get("changes").and_then(Value::as_array).cloned().unwrap_or_default();
            if !changes.is_empty() {
                h.raw("<div class=\"scroll\"><table id=\"changes\"><thead><tr><th scope=\"col\">")
                    .raw("Where</th><th scope=\"col\">Kind</th><th scope=\"col\">What</th></tr>")
                    .raw("</thead><tbody>");
                for c in &changes {
                    h.el("<tr><td><code>", str_of(c, "path"), "</code></td><td>");
                    badge(&mut h, str_of(c, "kind"));
                    h.el("</td><td>", str_of(c, "message"), "</td></tr>");
                }
                h.raw("</tbody></table></div>");
            }
        }
        Err(e) => {
            let problem = Problem::from(e);
            h.raw("<div class=\"error\" role=\"alert\">").el("<p>", &problem.detail, "</p>");
            page::violations(&mut h, &problem.errors);
            h.raw("</div>");
        }
    }
    page::ok(&format!("Compare releases of {name}"), &session, h)
}
