//! The review queue: proposals with a state filter, one proposal with its diff and
//! (tools) the release check, and Approve / Reject for approvers who did not write it.
//! The service decides who may approve; the buttons only follow its rule.

use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Redirect, Response};
use registry_api::Problem;
use registry_api::auth::same_principal;
use registry_api::service::can_approve;
use registry_store::{ProposalQuery, ProposalState};
use serde::Deserialize;
use serde_json::Value;

use crate::Console;
use crate::html::{Html, url_component};
use crate::page::{self, badge, csrf_field, json_text, link, str_of};
use crate::posted::Posted;
use crate::session::{Session, SignedIn};

/// The list's query.
#[derive(Debug, Default, Deserialize)]
pub struct ListForm {
    /// A state (`open` when absent; "" is any).
    #[serde(default)]
    pub state: Option<String>,
    /// The last proposal id of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// The proposal page's query: what was just done to it.
#[derive(Debug, Default, Deserialize)]
pub struct ShowForm {
    /// `approved` or `rejected`.
    #[serde(default)]
    pub done: String,
}

/// `GET /console/proposals`.
pub async fn list(
    State(console): State<Console>,
    SignedIn(session): SignedIn,
    Query(form): Query<ListForm>,
) -> Response {
    let state = form.state.as_deref().unwrap_or("open");
    let mut h = Html::new();
    let mut names = vec![""];
    names.extend(ProposalState::ALL.iter().map(|s| s.as_str()));
    h.raw("<form class=\"filters\" method=\"get\" action=\"/console/proposals\"><div>")
        .raw("<label for=\"state\">State</label><select id=\"state\" name=\"state\">");
    crate::lists::options(&mut h, state, &names);
    h.raw("</select></div><div><button type=\"submit\" id=\"filter\">Filter</button></div></form>");
    let query = ProposalQuery {
        state: ProposalState::parse(state),
        after: form.cursor.clone().filter(|c| !c.is_empty()),
        ..ProposalQuery::default()
    };
    let page = match console.api.registry.catalog.proposals(&query).await {
        Ok(page) => page,
        Err(e) => return page::problem(&session, &Problem::from(e)),
    };
    if page.items.is_empty() {
        h.raw("<p class=\"muted\" id=\"empty\">No proposal in this state.</p>");
    } else {
        h.raw("<div class=\"scroll\"><table id=\"proposals\"><thead><tr>")
            .raw("<th scope=\"col\">Proposal</th><th scope=\"col\">Changes</th>")
            .raw("<th scope=\"col\">Author</th><th scope=\"col\">Created</th>")
            .raw(
                "<th scope=\"col\">State</th><th scope=\"col\">Approvals</th></tr></thead><tbody>",
            );
        for p in &page.items {
            let v = serde_json::to_value(p).unwrap_or(Value::Null);
            h.raw("<tr><td><a href=\"/console/proposals/")
                .text(&url_component(&p.id))
                .raw("\">")
                .text(&p.id)
                .raw("</a></td><td>")
                .text(p.kind.as_str())
                .raw(" ");
            link(&mut h, kind_path(str_of(&v, "kind")), &p.definition_id);
            h.el("</td><td>", &p.author, "</td>").el("<td>", str_of(&v, "createdAt"), "</td><td>");
            badge(&mut h, p.state.as_str());
            h.raw("</td><td>")
                .num(p.approvals.len())
                .raw(" of ")
                .num(p.required_approvals)
                .raw("</td></tr>");
        }
        h.raw("</tbody></table></div>");
    }
    if let Some(next) = &page.next_cursor {
        h.raw("<p><a id=\"next\" href=\"/console/proposals?state=")
            .text(&url_component(state))
            .raw("&amp;cursor=")
            .text(&url_component(next))
            .raw("\">Next page</a></p>");
    }
    page::ok("Proposals", &session, h)
}

/// The console path of a definition kind.
fn kind_path(kind: &str) -> &'static str {
    if kind == "agent" { "agents" } else { "tools" }
}

/// `GET /console/proposals/{id}`.
pub async fn show(
    State(console): State<Console>,
    SignedIn(session): SignedIn,
    Path(id): Path<String>,
    Query(form): Query<ShowForm>,
) -> Response {
    match console.api.registry.catalog.proposal(&id).await {
        Ok(p) => {
            let v = serde_json::to_value(&p).unwrap_or(Value::Null);
            render(&session, &v, &form.done, None)
        }
        Err(e) => page::problem(&session, &Problem::from(e)),
    }
}

/// `POST /console/proposals/{id}/approve`: approves as the signed-in principal; the
/// service refuses the author and roles below approver.
pub async fn approve(
    State(console): State<Console>,
    Path(id): Path<String>,
    form: Posted,
) -> Response {
    let answer = console.api.registry.catalog.approve(&form.session.principal, &id).await;
    after(&console, &form.session, &id, answer.map(|_| "approved")).await
}

/// `POST /console/proposals/{id}/reject`: rejects with the reason given.
pub async fn reject(
    State(console): State<Console>,
    Path(id): Path<String>,
    form: Posted,
) -> Response {
    let reason = form.field("reason");
    let answer =
        console.api.registry.catalog.reject(&form.session.principal, &id, Some(reason)).await;
    after(&console, &form.session, &id, answer.map(|_| "rejected")).await
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
                Ok(p) => {
                    let v = serde_json::to_value(&p).unwrap_or(Value::Null);
                    let mut response = render(session, &v, "", Some(&problem));
                    *response.status_mut() = problem.status_code();
                    response
                }
                Err(_) => page::problem(session, &problem),
            }
        }
    }
}

/// The proposal page: who, what, the diff, the release check, and the review controls.
fn render(session: &Session, v: &Value, done: &str, problem: Option<&Problem>) -> Response {
    let id = str_of(v, "id");
    let state = str_of(v, "state");
    let author = str_of(v, "author");
    let kind = str_of(v, "kind");
    let mut h = Html::new();
    if let Some(p) = problem {
        h.raw("<div class=\"error\" role=\"alert\" id=\"review-error\">")
            .el("<p>", &p.detail, "</p>");
        page::violations(&mut h, &p.errors);
        h.raw("</div>");
    }
    let applied = v.get("appliedVersion").and_then(Value::as_u64);
    match (done, applied) {
        ("approved", Some(version)) => {
            h.raw("<p class=\"notice\" role=\"status\" id=\"applied\">Approved and applied: ")
                .text(kind)
                .raw(" ");
            link(&mut h, kind_path(kind), str_of(v, "definitionId"));
            h.raw(" is now at version ").num(version).raw(".</p>");
        }
        ("approved", None) => {
            h.raw("<p class=\"notice\" role=\"status\" id=\"applied\">Approved; it needs ")
                .raw("more approvals before it applies.</p>");
        }
        ("rejected", _) => {
            h.raw("<p class=\"notice\" role=\"status\" id=\"applied\">Rejected.</p>");
        }
        _ => {}
    }
    h.raw("<dl class=\"props\"><dt>Changes</dt><dd>").text(kind).raw(" ");
    link(&mut h, kind_path(kind), str_of(v, "definitionId"));
    h.raw("</dd><dt>State</dt><dd id=\"state\">");
    badge(&mut h, state);
    h.el("</dd><dt>Author</dt><dd id=\"author\">", author, "</dd>").el(
        "<dt>Created</dt><dd>",
        str_of(v, "createdAt"),
        "</dd>",
    );
    if let Some(base) = v.get("baseVersion").and_then(Value::as_u64) {
        h.raw("<dt>Made against version</dt><dd>").num(base).raw("</dd>");
    }
    if let Some(version) = applied {
        h.raw("<dt>Applied as version</dt><dd id=\"applied-version\">").num(version).raw("</dd>");
    }
    let note = str_of(v, "note");
    if !note.is_empty() {
        h.el("<dt>Note</dt><dd>", note, "</dd>");
    }
    let approvals = v.get("approvals").and_then(Value::as_array).cloned().unwrap_or_default();
    h.raw("<dt>Approvals</dt><dd id=\"approvals\">").num(approvals.len()).raw(" of ");
    h.text(&json_text(v.get("requiredApprovals").unwrap_or(&Value::Null)));
    for a in &approvals {
        h.el(" · ", str_of(a, "by"), "");
    }
    h.raw("</dd>");
    if let Some(closed) = v.get("closed") {
        h.el("<dt>Closed by</dt><dd id=\"closed\">", str_of(closed, "by"), " ")
            .text(str_of(closed, "at"));
        let reason = str_of(closed, "reason");
        if !reason.is_empty() {
            h.el(": ", reason, "");
        }
        h.raw("</dd>");
    }
    h.raw("</dl>");
    diff(&mut h, v);
    if let Some(check) = v.get("releaseCheck").and_then(Value::as_array) {
        h.raw("<h2>Release check</h2>");
        if check.is_empty() {
            h.raw("<p id=\"release-check\">Passes: no breaking change to a release.</p>");
        } else {
            h.raw("<ul class=\"violations\" id=\"release-check\">");
            for e in check {
                h.el("<li><code>", str_of(e, "path"), "</code> ")
                    .text(str_of(e, "message"))
                    .raw("</li>");
            }
            h.raw("</ul>");
        }
    }
    let pending = state == "open" || state == "approved";
    let principal = &session.principal;
    let own = same_principal(&principal.name, author);
    if pending && can_approve(principal) && !own {
        let id_url = url_component(id);
        h.raw("<h2>Review</h2><form method=\"post\" action=\"/console/proposals/")
            .text(&id_url)
            .raw("/approve\">");
        csrf_field(&mut h, session);
        h.raw("<button type=\"submit\" id=\"approve\">Approve</button></form>")
            .raw("<form method=\"post\" action=\"/console/proposals/")
            .text(&id_url)
            .raw("/reject\">");
        csrf_field(&mut h, session);
        h.raw("<div class=\"field\"><label for=\"reason\">Reason for rejecting</label>")
            .raw("<input type=\"text\" id=\"reason\" name=\"reason\" required></div>")
            .raw("<button type=\"submit\" id=\"reject\">Reject</button></form>");
    } else if pending && own {
        h.raw("<p class=\"muted\" id=\"no-review\">You proposed this: another approver must ")
            .raw("review it.</p>");
    } else if pending {
        h.raw("<p class=\"muted\" id=\"no-review\">Approving needs the approver or admin ")
            .raw("role.</p>");
    }
    h.raw("<details><summary>The proposed definition</summary>");
    page::pre_json(&mut h, v.get("definition").unwrap_or(&Value::Null));
    h.raw("</details>");
    page::ok(&format!("Proposal {id}"), session, h)
}

/// The RFC 6902 operations from the base version, as a table.
fn diff(h: &mut Html, v: &Value) {
    h.raw("<h2>Changes</h2>");
    let Some(ops) = v.get("diff").and_then(Value::as_array).filter(|d| !d.is_empty()) else {
        h.raw("<p class=\"muted\">No changes from the base version.</p>");
        return;
    };
    h.raw("<div class=\"scroll\"><table id=\"diff\"><thead><tr><th scope=\"col\">Operation</th>")
        .raw("<th scope=\"col\">Path</th><th scope=\"col\">Value</th></tr></thead><tbody>");
    for op in ops {
        h.el("<tr><td>", str_of(op, "op"), "</td>")
            .el("<td><code>", str_of(op, "path"), "</code></td>")
            .el(
                "<td><code>",
                &json_text(op.get("value").unwrap_or(&Value::Null)),
                "</code></td></tr>",
            );
    }
    h.raw("</tbody></table></div>");
}
