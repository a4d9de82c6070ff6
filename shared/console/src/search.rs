//! `GET /console/tools/search`: the search box of the tools list and its ranked results
//! (the same ranking as `GET /tools/search`; a signed-in session has a role, so it sees
//! every tool).

use axum::extract::Query;
use axum::response::Response;
use maud::{Markup, html};
use registry_api::Problem;
use registry_api::service::{SearchQuery, Viewer};
use serde::Deserialize;

use crate::page;
use crate::parts::{error_box, link, table};
use crate::session::SignedIn;

/// The search form's fields.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SearchForm {
    /// The words.
    pub q: String,
}

/// Results shown.
const RESULTS: usize = 20;

/// The search box (also on the tools list).
pub fn search_box(q: &str) -> Markup {
    html! {
        form.search method="get" action="/console/tools/search" role="search" aria-label="Search tools" {
            label for="s-q" { "Search tools" }
            input type="search" id="s-q" name="q" placeholder="what the tool does" value=(q);
            button type="submit" { "Search" }
        }
    }
}

/// `GET /console/tools/search?q=`.
pub async fn show(
    SignedIn(console, session): SignedIn,
    Query(form): Query<SearchForm>,
) -> Response {
    let q = form.q.trim();
    let found = match q {
        "" => None,
        q => Some(
            console
                .api
                .registry
                .discovery
                .search(&Viewer::Everyone, SearchQuery { q, limit: RESULTS })
                .await
                .map_err(Problem::from),
        ),
    };
    let body = html! {
        (search_box(q))
        @match &found {
            None => {}
            Some(Ok(answer)) if answer.results.is_empty() => {
                p.muted #empty { "No tool matches these words." }
            }
            Some(Ok(answer)) => {
                (table("results", &["Tool", "Function", "Score", "Why"], html! {
                    @for hit in &answer.results { tr {
                        td { (link("tools", &hit.tool_id)) " " span.muted { (hit.display_name) } }
                        td { (hit.function.as_deref().unwrap_or_default()) }
                        td { (format!("{:.2}", hit.score)) }
                        td { @for m in &hit.matched {
                            span.why { (m.field.as_str()) ": " (m.terms.join(" ")) } " "
                        } }
                    } }
                }))
            }
            Some(Err(problem)) => { (error_box(None, &problem.detail, &problem.errors)) }
        }
    };
    let status = match &found {
        Some(Err(problem)) => problem.status_code(),
        _ => http::StatusCode::OK,
    };
    page::reply(status, "Search tools", &session, body)
}
