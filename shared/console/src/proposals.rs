//! The review queue: proposals with a state filter, one proposal with its diff and
//! (tools) the release check, and Approve / Reject for approvers who did not write it.
//! The service decides who may approve; the buttons only follow its rule.

use axum::extract::{Path, Query};
use axum::response::{IntoResponse, Redirect, Response};
use http::StatusCode;
use maud::{Markup, html};
use registry_api::Problem;
use registry_api::ProposalView;
use registry_api::auth::same_principal;
use registry_api::service::can_approve;
use registry_store::{PatchOp, ProposalQuery, ProposalState};
use serde::Deserialize;

use crate::Console;
use crate::html::url_component;
use crate::page::{self, problem_box};
use crate::parts::{
    badge, csrf_field, filters, kind_path, link, pre_json, select, table, time, violations,
};
use crate::posted::Posted;
use crate::session::{Session, SignedIn};

/// The list's query.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ListForm {
    /// A state (`open` when absent; "" is any).
    pub state: Option<String>,
    /// The last proposal id of the previous page.
    pub cursor: Option<String>,
}

/// The proposal page's query: what was just done to it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ShowForm {
    /// `approved` or `rejected`.
    pub done: String,
}

/// `GET /console/proposals`.
pub async fn list(SignedIn(console, session): SignedIn, Query(form): Query<ListForm>) -> Response {
    let state = form.state.as_deref().unwrap_or("open");
    let mut names = vec![""];
    names.extend(ProposalState::ALL.iter().map(|s| s.as_str()));
    let query = ProposalQuery {
        state: ProposalState::parse(state),
        after: form.cursor.clone().filter(|c| !c.is_empty()),
        ..ProposalQuery::default()
    };
    let page = match console.api.registry.catalog.proposals(&query).await {
        Ok(page) => page,
        Err(e) => return page::problem(&session, &Problem::from(e)),
    };
    let body = html! {
        (filters(
            "/console/proposals",
            select("state", "state", "State", state, &names),
            html! { button #filter type="submit" { "Filter" } },
        ))
        @if page.items.is_empty() {
            p.muted #empty { "No proposal in this state." }
        } @else {
            (table(
                "proposals",
                &["Proposal", "Changes", "Author", "Created", "State", "Approvals"],
                html! { @for p in &page.items { tr {
                    td { a href={ "/console/proposals/" (url_component(&p.id)) } { (p.id) } }
                    td { (p.kind.as_str()) " " (link(kind_path(p.kind), &p.definition_id)) }
                    td { (p.author) }
                    td { (time(&p.created_at)) }
                    td { (badge(p.state.as_str())) }
                    td { (p.approvals.len()) " of " (p.required_approvals) }
                } } }))
        }
        @if let Some(next) = &page.next_cursor {
            @let href = format!(
                "/console/proposals?state={}&cursor={}",
                url_component(state),
                url_component(next)
            );
            p { a #next href=(href) { "Next page" } }
        }
    };
    page::ok("Proposals", &session, body)
}

/// `GET /console/proposals/{id}`.
pub async fn show(
    SignedIn(console, session): SignedIn,
    Path(id): Path<String>,
    Query(form): Query<ShowForm>,
) -> Response {
    match console.api.registry.catalog.proposal(&id).await {
        Ok(p) => render(&session, &p, &form.done, None),
        Err(e) => page::problem(&session, &Problem::from(e)),
    }
}

/// `POST /console/proposals/{id}/approve`: approves as the signed-in principal; the
/// service refuses the author and roles below approver.
pub async fn approve(Path(id): Path<String>, form: Posted) -> Response {
    let console = &form.console;
    let answer = console.api.registry.catalog.approve(&form.session.principal, &id).await;
    after(console, &form.session, &id, answer.map(|_| "approved")).await
}

/// `POST /console/proposals/{id}/reject`: rejects with the reason given.
pub async fn reject(Path(id): Path<String>, form: Posted) -> Response {
    let console = &form.console;
    let reason = form.field("reason");
    let answer =
        console.api.registry.catalog.reject(&form.session.principal, &id, Some(reason)).await;
    after(console, &form.session, &id, answer.map(|_| "rejected")).await
}

/// Back to the proposal page, or the proposal with the refusal (a stale proposal, a
/// missing reason, a role too low).
async fn after(
    console: &Console,
    session: &Session,
    id: &str,
    answer: Result<&'static str, registry_api::ServiceError>,
) -> Response {
    match answer {
        Ok(done) => Redirect::to(&format!("/console/proposals/{}?done={done}", url_component(id)))
            .into_response(),
        Err(e) => {
            let problem = Problem::from(e);
            match console.api.registry.catalog.proposal(id).await {
                Ok(p) => render(session, &p, "", Some(&problem)),
                Err(_) => page::problem(session, &problem),
            }
        }
    }
}

/// The proposal page: who, what, the diff, the release check, and the review controls;
/// answered with the status of `problem` when there is one.
fn render(session: &Session, p: &ProposalView, done: &str, problem: Option<&Problem>) -> Response {
    let kind = p.kind.as_str();
    let definition = link(kind_path(p.kind), &p.definition_id);
    let body = html! {
        @if let Some(problem) = problem { (problem_box(Some("review-error"), problem)) }
        @match (done, p.applied_version) {
            ("approved", Some(version)) => p.notice role="status" #applied {
                "Approved and applied: " (kind) " " (definition) " is now at version " (version) "."
            },
            ("approved", None) => p.notice role="status" #applied {
                "Approved; it needs more approvals before it applies."
            },
            ("rejected", _) => p.notice role="status" #applied { "Rejected." },
            _ => {},
        }
        dl.props {
            dt { "Changes" } dd { (kind) " " (definition) }
            dt { "State" } dd #state { (badge(p.state.as_str())) }
            dt { "Author" } dd #author { (p.author) }
            dt { "Created" } dd { (time(&p.created_at)) }
            @if let Some(base) = p.base_version { dt { "Made against version" } dd { (base) } }
            @if let Some(version) = p.applied_version {
                dt { "Applied as version" } dd #applied-version { (version) }
            }
            @if let Some(note) = p.note.as_deref().filter(|n| !n.is_empty()) {
                dt { "Note" } dd { (note) }
            }
            dt { "Approvals" }
            dd #approvals {
                (p.approvals.len()) " of " (p.required_approvals)
                @for a in &p.approvals { " · " (a.by) }
            }
            @if let Some(closed) = &p.closed {
                dt { "Closed by" }
                dd #closed {
                    (closed.by) " " (time(&closed.at))
                    @if let Some(reason) = closed.reason.as_deref().filter(|r| !r.is_empty()) {
                        ": " (reason)
                    }
                }
            }
        }
        (diff(p.diff.as_deref()))
        @if let Some(check) = &p.release_check {
            h2 { "Release check" }
            @if check.is_empty() {
                p #release-check { "Passes: no breaking change to a release." }
            } @else {
                div #release-check { (violations(check)) }
            }
        }
        (review(session, p))
        details { summary { "The proposed definition" } (pre_json(&p.definition)) }
    };
    let status = problem.map_or(StatusCode::OK, Problem::status_code);
    page::reply(status, &format!("Proposal {}", p.id), session, body)
}

/// Approve and Reject for an approver who did not write it, or why there are none.
fn review(session: &Session, p: &ProposalView) -> Markup {
    let pending = matches!(p.state, ProposalState::Open | ProposalState::Approved);
    let principal = &session.principal;
    let own = same_principal(&principal.name, &p.author);
    let base = format!("/console/proposals/{}", url_component(&p.id));
    html! {
        @if pending && can_approve(principal) && !own {
            h2 { "Review" }
            form method="post" action={ (base) "/approve" } {
                (csrf_field(session))
                button type="submit" #approve { "Approve" }
            }
            form method="post" action={ (base) "/reject" } {
                (csrf_field(session))
                div.field {
                    label for="reason" { "Reason for rejecting" }
                    input type="text" id="reason" name="reason" required;
                }
                button type="submit" #reject { "Reject" }
            }
        } @else if pending && own {
            p.muted #no-review { "You proposed this: another approver must review it." }
        } @else if pending {
            p.muted #no-review { "Approving needs the approver or admin role." }
        }
    }
}

/// The RFC 6902 operations from the base version, as a table.
fn diff(ops: Option<&[PatchOp]>) -> Markup {
    html! {
        h2 { "Changes" }
        @match ops.filter(|d| !d.is_empty()) {
            None => p.muted { "No changes from the base version." },
            Some(ops) => (table("diff", &["Operation", "Path", "Value"], html! { @for op in ops {
                    @let (name, path, value) = match op {
                        PatchOp::Add { path, value } => ("add", path, Some(value)),
                        PatchOp::Remove { path } => ("remove", path, None),
                        PatchOp::Replace { path, value } => ("replace", path, Some(value)),
                    };
                    tr {
                        td { (name) }
                        td { code { (path) } }
                        td { code { (value.map(crate::parts::json_text).unwrap_or_default()) } }
                    }
                } })),
        }
    }
}
