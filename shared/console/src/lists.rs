//! The agents and tools lists: filters (name, tag, status, execution type), pages, and
//! a tool's releases grouped under its name.

use axum::extract::Query;
use axum::response::Response;
use maud::{Markup, html};
use registry_api::Problem;
use registry_api::http::params::ListParams;
use registry_api::service::Resource as _;
use registry_core::{AgentDefinition, ToolDefinition};
use registry_store::ListQuery;
use serde::Deserialize;

use crate::Console;
use crate::html::url_component;
use crate::kind::Kind;
use crate::page;
use crate::parts::{badge, error_box, filters, link, select, table, tags, tool_name};
use crate::session::{Session, SignedIn};

/// Rows on one page of a list.
pub const PAGE_SIZE: u32 = 25;
/// Most definitions a name search reads for one page (it filters ids in the console:
/// the store has no substring index).
pub const NAME_SCAN_LIMIT: usize = 1_000;

/// The statuses the filter offers ("" is any).
const STATUSES: [&str; 5] = ["", "active", "deprecated", "disabled", "retired"];
/// The execution types the filter offers ("" is any).
const TYPES: [&str; 4] = ["", "lambda", "mcp", "inline"];

/// The filter form's fields (empty ones are ignored).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ListForm {
    /// Part of the id, any case.
    pub name: String,
    /// `key` or `key=value`.
    pub tag: String,
    /// Lifecycle status.
    pub status: String,
    /// Tools: `lambda`, `mcp` or `inline`.
    #[serde(rename = "executionType")]
    pub execution_type: String,
    /// The next page's cursor.
    pub cursor: String,
    /// Rows per page (default [`PAGE_SIZE`]; the API's bounds).
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
struct Found<R> {
    items: Vec<R>,
    next_cursor: Option<String>,
}

/// A kind of definition with a list page.
trait Listed: Kind + Sized {
    /// The page's title.
    const TITLE: &'static str;
    /// Whether the list filters by execution type (tools).
    const BY_TYPE: bool;
    /// What a number of rows is a number of, and how they are ordered.
    const COUNTED: &'static str;
    /// The table's columns.
    const HEADINGS: &'static [&'static str];
    /// One page of matches as table rows.
    fn rows(items: &[Self]) -> Markup;
}

/// `GET /console/agents`.
pub async fn agents(
    SignedIn(console, session): SignedIn,
    Query(form): Query<ListForm>,
) -> Response {
    list::<AgentDefinition>(&console, &session, &form).await
}

/// `GET /console/tools`.
pub async fn tools(SignedIn(console, session): SignedIn, Query(form): Query<ListForm>) -> Response {
    list::<ToolDefinition>(&console, &session, &form).await
}

async fn list<R: Listed>(console: &Console, session: &Session, form: &ListForm) -> Response {
    let path = R::PATH;
    let found = find::<R>(console, form).await;
    let body = html! {
        @if R::BY_TYPE { (crate::search::search_box("")) }
        (filter_form(path, R::BY_TYPE, form))
        @match &found {
            Ok(found) => {
                @if found.items.is_empty() {
                    p.muted #empty { "No " (R::NOUN) " matches these filters." }
                } @else {
                    p.muted { (found.items.len()) " " (R::COUNTED) }
                    (table(R::PATH, R::HEADINGS, R::rows(&found.items)))
                }
                nav.pager aria-label="Pages" {
                    @if !form.cursor.is_empty() { a href={ "/console/" (path) } { "First page" } }
                    @if let Some(next) = &found.next_cursor {
                        a rel="next" href={ "/console/" (path) "?" (form.with_cursor(next)) } {
                            "Next page"
                        }
                    }
                }
            }
            Err(problem) => {
                (error_box(None, "These filters are not valid:", &problem.errors))
            }
        }
    };
    let status = found.as_ref().err().map_or(http::StatusCode::OK, Problem::status_code);
    page::reply(status, R::TITLE, session, body)
}

/// Reads one page through the service; a name search reads pages until it has a page
/// of matches (or [`NAME_SCAN_LIMIT`] definitions were read).
async fn find<R: Listed>(console: &Console, form: &ListForm) -> Result<Found<R>, Problem> {
    let needle = form.name.trim().to_lowercase();
    let mut query: ListQuery = form.params(R::BY_TYPE, PAGE_SIZE).to_query(R::KIND, true)?;
    let page_size = usize::try_from(query.limit).unwrap_or(usize::MAX);
    if !needle.is_empty() {
        query.limit = 100;
    }
    let mut items = Vec::new();
    let mut read = 0;
    loop {
        let page = console.api.registry.catalog.list::<R>(&query).await.map_err(Problem::from)?;
        read += page.items.len();
        items.extend(
            page.items
                .into_iter()
                .filter(|item| needle.is_empty() || item.id().to_lowercase().contains(&needle)),
        );
        let done = needle.is_empty() || items.len() >= page_size || read >= NAME_SCAN_LIMIT;
        match page.next_cursor {
            Some(next) if !done => query.cursor = Some(next),
            next_cursor => return Ok(Found { items, next_cursor }),
        }
    }
}

fn filter_form(path: &str, by_type: bool, form: &ListForm) -> Markup {
    let fields = html! {
        div {
            label for="f-name" { "Name" }
            input type="search" id="f-name" name="name" placeholder="part of the id"
                value=(form.name);
        }
        div {
            label for="f-tag" { "Tag" }
            input type="text" id="f-tag" name="tag" placeholder="key or key=value" value=(form.tag);
        }
        (select("f-status", "status", "Status", &form.status, &STATUSES))
        @if by_type {
            (select("f-type", "executionType", "Execution type", &form.execution_type, &TYPES))
        }
    };
    let submit =
        html! { button type="submit" { "Filter" } " " a href={ "/console/" (path) } { "Clear" } };
    filters(&format!("/console/{path}"), fields, submit)
}

impl Listed for AgentDefinition {
    const TITLE: &'static str = "Agents";
    const BY_TYPE: bool = false;
    const COUNTED: &'static str = "agents";
    const HEADINGS: &'static [&'static str] =
        &["Agent", "Description", "Status", "Tags", "Tools", "Version"];

    fn rows(items: &[Self]) -> Markup {
        html! {
            @for a in items { tr {
                td { (link("agents", &a.agent_id)) }
                td { (a.description.as_deref().unwrap_or_default()) }
                td { (badge(a.status().as_str())) }
                td { (tags(a.tags.as_ref())) }
                td { (a.tool_ids.len()) }
                td { (a.version()) }
            } }
        }
    }
}

impl Listed for ToolDefinition {
    const TITLE: &'static str = "Tools";
    const BY_TYPE: bool = true;
    const COUNTED: &'static str = "releases, grouped by tool name";
    const HEADINGS: &'static [&'static str] =
        &["Release", "Display name", "Type", "Description", "Status", "Tags", "Version"];

    fn rows(items: &[Self]) -> Markup {
        let mut sorted: Vec<&ToolDefinition> = items.iter().collect();
        sorted.sort_by(|a, b| registry_core::release_order(&a.tool_id, &b.tool_id));
        // Each release, with its tool's name when it starts a group.
        let mut current = "";
        let mut rows = Vec::with_capacity(sorted.len());
        for t in sorted {
            let name = tool_name(&t.tool_id);
            rows.push(((name != current).then_some(name), t));
            current = name;
        }
        html! {
            @for (group, t) in rows {
                @if let Some(name) = group {
                    tr.group { th colspan="7" scope="rowgroup" { (name) } }
                }
                tr {
                    td { (link("tools", &t.tool_id)) }
                    td { (t.display_name) }
                    td { (t.execution_type.as_str()) }
                    td { (t.description) }
                    td { (badge(t.status().as_str())) }
                    td { (tags(t.tags.as_ref())) }
                    td { (t.version()) }
                }
            }
        }
    }
}
