//! The agents and tools lists: filters (name, tag, status, execution type), pages, and
//! a tool's releases grouped under its name.

use axum::extract::{Query, State};
use axum::response::Response;
use registry_api::Problem;
use registry_api::http::params::ListParams;
use registry_core::{AgentDefinition, ToolDefinition};
use registry_store::ListQuery;
use serde::Deserialize;
use serde_json::Value;

use crate::Console;
use crate::html::{Html, url_component};
use crate::kind::Kind;
use crate::page::{self, badge, link, status_of, str_of, tags};
use crate::session::SignedIn;

/// Rows on one page of a list.
pub const PAGE_SIZE: u32 = 25;
/// Most definitions a name search reads for one page (it filters ids in the console:
/// the store has no substring index).
pub const NAME_SCAN_LIMIT: usize = 1_000;

/// The filter form's fields (empty ones are ignored).
#[derive(Debug, Default, Deserialize)]
pub struct ListForm {
    /// Part of the id, any case.
    #[serde(default)]
    pub name: String,
    /// `key` or `key=value`.
    #[serde(default)]
    pub tag: String,
    /// Lifecycle status.
    #[serde(default)]
    pub status: String,
    /// Tools: `lambda`, `mcp` or `inline`.
    #[serde(default, rename = "executionType")]
    pub execution_type: String,
    /// The next page's cursor.
    #[serde(default)]
    pub cursor: String,
    /// Rows per page (default [`PAGE_SIZE`]; the API's bounds).
    #[serde(default)]
    pub limit: String,
}

impl ListForm {
    /// The filters as the API's query parameters (the same parser and messages).
    fn params(&self, tools: bool, limit: u32) -> ListParams {
        let limit = match self.limit.trim() {
            "" => limit.to_string(),
            given => given.to_owned(),
        };
        let mut pairs = vec![("limit".to_owned(), limit)];
        let mut add = |k: &str, v: &str| {
            if !v.trim().is_empty() {
                pairs.push((k.to_owned(), v.trim().to_owned()));
            }
        };
        add("tag", &self.tag);
        add("status", &self.status);
        if tools {
            add("executionType", &self.execution_type);
        }
        add("cursor", &self.cursor);
        ListParams(pairs)
    }

    /// The query string of this form with another cursor.
    fn with_cursor(&self, cursor: &str) -> String {
        let mut q = String::new();
        for (k, v) in [
            ("name", &self.name),
            ("tag", &self.tag),
            ("status", &self.status),
            ("executionType", &self.execution_type),
            ("limit", &self.limit),
        ] {
            if !v.is_empty() {
                q.push_str(&format!("{k}={}&", url_component(v)));
            }
        }
        q.push_str(&format!("cursor={}", url_component(cursor)));
        q
    }
}

/// One page of matches and the cursor after it.
struct Found {
    items: Vec<Value>,
    next_cursor: Option<String>,
}

/// `GET /console/agents`.
pub async fn agents(
    State(console): State<Console>,
    SignedIn(session): SignedIn,
    Query(form): Query<ListForm>,
) -> Response {
    list::<AgentDefinition>(&console, &session, &form).await
}

/// `GET /console/tools`.
pub async fn tools(
    State(console): State<Console>,
    SignedIn(session): SignedIn,
    Query(form): Query<ListForm>,
) -> Response {
    list::<ToolDefinition>(&console, &session, &form).await
}

async fn list<R: Kind>(
    console: &Console,
    session: &crate::session::Session,
    form: &ListForm,
) -> Response {
    let tools = R::PATH == "tools";
    let title = if tools { "Tools" } else { "Agents" };
    let mut body = Html::new();
    filters(&mut body, R::PATH, tools, form);
    match find::<R>(console, form, tools).await {
        Ok(found) => {
            if tools {
                tool_table(&mut body, &found.items);
            } else {
                agent_table(&mut body, &found.items);
            }
            body.raw("<nav class=\"pager\" aria-label=\"Pages\">");
            if !form.cursor.is_empty() {
                body.raw("<a href=\"/console/").raw(R::PATH).raw("\">First page</a>");
            }
            if let Some(next) = found.next_cursor {
                body.raw("<a rel=\"next\" href=\"/console/")
                    .raw(R::PATH)
                    .raw("?")
                    .text(&form.with_cursor(&next))
                    .raw("\">Next page</a>");
            }
            body.raw("</nav>");
            page::ok(title, session, body)
        }
        Err(problem) => {
            body.raw("<div class=\"error\" role=\"alert\"><p>These filters are not valid:</p>");
            page::violations(&mut body, &problem.errors);
            body.raw("</div>");
            page::respond(problem.status_code(), page::page(title, Some(session), body))
        }
    }
}

/// Reads one page through the service; a name search reads pages until it has a page
/// of matches (or [`NAME_SCAN_LIMIT`] definitions were read).
async fn find<R: Kind>(console: &Console, form: &ListForm, tools: bool) -> Result<Found, Problem> {
    let needle = form.name.trim().to_lowercase();
    let mut query: ListQuery = form.params(tools, PAGE_SIZE).to_query(R::KIND, true)?;
    let page_size = usize::try_from(query.limit).unwrap_or(usize::MAX);
    if !needle.is_empty() {
        query.limit = 100;
    }
    let mut items = Vec::new();
    let mut read = 0;
    loop {
        let page = console.api.registry.catalog.list::<R>(&query).await.map_err(Problem::from)?;
        read += page.items.len();
        for item in page.items {
            if needle.is_empty() || item.id().to_lowercase().contains(&needle) {
                items.push(serde_json::to_value(&item).unwrap_or(Value::Null));
            }
        }
        let done = needle.is_empty() || items.len() >= page_size || read >= NAME_SCAN_LIMIT;
        match page.next_cursor {
            Some(next) if !done => query.cursor = Some(next),
            next_cursor => return Ok(Found { items, next_cursor }),
        }
    }
}

fn filters(h: &mut Html, path: &'static str, tools: bool, form: &ListForm) {
    h.raw("<form class=\"filters\" method=\"get\" action=\"/console/")
        .raw(path)
        .raw("\" role=\"search\">")
        .raw("<div><label for=\"f-name\">Name</label><input type=\"search\" id=\"f-name\" ")
        .raw("name=\"name\" placeholder=\"part of the id\" value=\"")
        .text(&form.name)
        .raw("\"></div><div><label for=\"f-tag\">Tag</label><input type=\"text\" id=\"f-tag\" ")
        .raw("name=\"tag\" placeholder=\"key or key=value\" value=\"")
        .text(&form.tag)
        .raw("\"></div><div><label for=\"f-status\">Status</label>")
        .raw("<select id=\"f-status\" name=\"status\">");
    options(h, &form.status, &["", "active", "deprecated", "disabled", "retired"]);
    h.raw("</select></div>");
    if tools {
        h.raw("<div><label for=\"f-type\">Execution type</label>")
            .raw("<select id=\"f-type\" name=\"executionType\">");
        options(h, &form.execution_type, &["", "lambda", "mcp", "inline"]);
        h.raw("</select></div>");
    }
    h.raw("<div><button type=\"submit\">Filter</button> <a href=\"/console/")
        .raw(path)
        .raw("\">Clear</a></div></form>");
}

/// `<option>`s of `values` ("" is "any"), `selected` chosen.
pub fn options(h: &mut Html, selected: &str, values: &[&str]) {
    for v in values {
        h.raw("<option value=\"").text(v).raw("\"");
        if *v == selected {
            h.raw(" selected");
        }
        h.raw(">").text(if v.is_empty() { "any" } else { v }).raw("</option>");
    }
}

fn agent_table(h: &mut Html, items: &[Value]) {
    if items.is_empty() {
        h.raw("<p class=\"muted\" id=\"empty\">No agent matches these filters.</p>");
        return;
    }
    h.raw("<div class=\"scroll\"><table id=\"agents\"><caption class=\"muted\">")
        .num(items.len())
        .raw(" agents</caption><thead><tr><th scope=\"col\">Agent</th><th scope=\"col\">")
        .raw("Description</th><th scope=\"col\">Status</th><th scope=\"col\">Tags</th>")
        .raw("<th scope=\"col\">Tools</th><th scope=\"col\">Version</th></tr></thead><tbody>");
    for a in items {
        h.raw("<tr><td>");
        link(h, "agents", str_of(a, "agentId"));
        h.el("</td><td>", str_of(a, "description"), "</td><td>");
        badge(h, status_of(a));
        h.raw("</td><td>");
        tags(h, a);
        h.raw("</td><td>")
            .num(a.get("toolIds").and_then(Value::as_array).map_or(0, Vec::len))
            .raw("</td><td>")
            .num(a.get("version").and_then(Value::as_u64).unwrap_or(0))
            .raw("</td></tr>");
    }
    h.raw("</tbody></table></div>");
}

fn tool_table(h: &mut Html, items: &[Value]) {
    if items.is_empty() {
        h.raw("<p class=\"muted\" id=\"empty\">No tool matches these filters.</p>");
        return;
    }
    let mut rows: Vec<&Value> = items.iter().collect();
    rows.sort_by(|a, b| registry_core::release_order(str_of(a, "toolId"), str_of(b, "toolId")));
    h.raw("<div class=\"scroll\"><table id=\"tools\"><caption class=\"muted\">")
        .num(items.len())
        .raw(" releases, grouped by tool name</caption><thead><tr><th scope=\"col\">Release</th>")
        .raw("<th scope=\"col\">Display name</th><th scope=\"col\">Type</th><th scope=\"col\">")
        .raw("Description</th><th scope=\"col\">Status</th><th scope=\"col\">Tags</th>")
        .raw("<th scope=\"col\">Version</th></tr></thead><tbody>");
    let mut current = "";
    for t in rows {
        let id = str_of(t, "toolId");
        let name = id.split_once('@').map_or(id, |(n, _)| n);
        if name != current {
            current = name;
            h.raw("<tr class=\"group\"><th colspan=\"7\" scope=\"rowgroup\">")
                .text(name)
                .raw("</th></tr>");
        }
        h.raw("<tr><td>");
        link(h, "tools", id);
        h.el("</td><td>", str_of(t, "displayName"), "</td><td>")
            .text(str_of(t, "executionType"))
            .el("</td><td>", str_of(t, "description"), "</td><td>");
        badge(h, status_of(t));
        h.raw("</td><td>");
        tags(h, t);
        h.raw("</td><td>")
            .num(t.get("version").and_then(Value::as_u64).unwrap_or(0))
            .raw("</td></tr>");
    }
    h.raw("</tbody></table></div>");
}
