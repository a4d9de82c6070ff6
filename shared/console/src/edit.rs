//! The edit form and the lifecycle buttons. Writes go through the service as the
//! signed-in principal, with the version the page showed as the precondition (what
//! `If-Match` is to the API): a stale page is a clear conflict, never a lost update.
//! The role is checked by the service, as for the API.

use std::collections::HashMap;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use http::StatusCode;
use registry_api::http::Code;
use registry_api::service::{Outcome, Precondition};
use registry_api::{Problem, Role};
use serde_json::{Map, Value, json};

use crate::Console;
use crate::html::{Html, url_component};
use crate::kind::Kind;
use crate::page::{self, csrf_field, link};
use crate::posted::Posted;
use crate::session::{Session, SignedIn};

/// `GET /console/{agents|tools}/{id}/edit`.
pub async fn form<R: Kind>(
    State(console): State<Console>,
    SignedIn(session): SignedIn,
    Path(id): Path<String>,
) -> Response {
    if !session.principal.has(Role::Editor) {
        let problem = Problem::new(
            StatusCode::FORBIDDEN,
            Code::Forbidden,
            format!(
                "editing needs the `editor` role; you have `{}`",
                session.principal.role.as_str()
            ),
        );
        return page::problem(&session, &problem);
    }
    let current = match console.api.registry.catalog.get::<R>(&id).await {
        Ok(d) => serde_json::to_value(&d).unwrap_or(Value::Null),
        Err(e) => return page::problem(&session, &Problem::from(e)),
    };
    let version = current.get("version").and_then(Value::as_u64).unwrap_or(0);
    let values: HashMap<String, String> = R::FIELDS
        .iter()
        .map(|f| {
            (
                f.name.to_owned(),
                current.get(f.name).and_then(Value::as_str).unwrap_or("").to_owned(),
            )
        })
        .collect();
    render::<R>(&session, &id, version, &values, None, StatusCode::OK)
}

/// `POST /console/{agents|tools}/{id}/edit`: a JSON Merge Patch of the form's fields at
/// the page's version; then the history with the change.
pub async fn submit<R: Kind>(
    State(console): State<Console>,
    Path(id): Path<String>,
    form: Posted,
) -> Response {
    let session = &form.session;
    let Some(version) = form.version() else {
        return page::problem(
            session,
            &Problem::bad_request("/version", "the form lost its version; reload the page"),
        );
    };
    let mut patch = Map::new();
    let mut values = HashMap::new();
    for f in R::FIELDS {
        if let Some(v) = form.fields.get(f.name) {
            patch.insert(f.name.to_owned(), Value::String(v.clone()));
            values.insert(f.name.to_owned(), v.clone());
        }
    }
    let written = console
        .api
        .registry
        .catalog
        .patch::<R>(
            &session.principal,
            &id,
            &Value::Object(patch),
            Precondition::Version(version),
            None,
        )
        .await;
    match written {
        Ok(w) if w.outcome == Outcome::Proposed => {
            let proposal = w.proposal.map(|p| p.id).unwrap_or_default();
            Redirect::to(&format!("/console/proposals/{}", url_component(&proposal)))
                .into_response()
        }
        Ok(w) => {
            let new = w.definition.version();
            let saved = if w.outcome == Outcome::Unchanged { version } else { new };
            Redirect::to(&format!(
                "/console/{}/{}/history?from={version}&to={new}&saved={saved}",
                R::PATH,
                url_component(&id)
            ))
            .into_response()
        }
        Err(e) => {
            let problem = Problem::from(e);
            match problem.code {
                Code::ValidationFailed | Code::VersionMismatch | Code::Conflict => {
                    let status = problem.status_code();
                    render::<R>(session, &id, version, &values, Some(&problem), status)
                }
                _ => page::problem(session, &problem),
            }
        }
    }
}

/// `POST /console/{agents|tools}/{id}/lifecycle`: disable or enable at the page's
/// version.
pub async fn lifecycle<R: Kind>(
    State(console): State<Console>,
    Path(id): Path<String>,
    form: Posted,
) -> Response {
    let session = &form.session;
    let version = form.version().unwrap_or(0);
    let status = form.field("status");
    let patch = json!({"lifecycle": {"status": status}});
    match console
        .api
        .registry
        .catalog
        .patch::<R>(&session.principal, &id, &patch, Precondition::Version(version), None)
        .await
    {
        Ok(_) => {
            Redirect::to(&format!("/console/{}/{}", R::PATH, url_component(&id))).into_response()
        }
        Err(e) => page::problem(session, &conflict_detail(Problem::from(e), version)),
    }
}

/// A version mismatch said in the words of a page that was open too long.
fn conflict_detail(mut problem: Problem, version: u64) -> Problem {
    if problem.code == Code::VersionMismatch {
        problem.detail = match problem.current_version {
            Some(current) => format!(
                "Someone changed this since you opened the page: your page shows version \
                 {version}, it is now at version {current}. Nothing was saved."
            ),
            None => format!(
                "Your page shows version {version}, which is no longer current. Nothing was saved."
            ),
        };
    }
    problem
}

fn render<R: Kind>(
    session: &Session,
    id: &str,
    version: u64,
    values: &HashMap<String, String>,
    problem: Option<&Problem>,
    status: StatusCode,
) -> Response {
    let id_url = url_component(id);
    let mut h = Html::new();
    h.raw("<p>");
    link(&mut h, R::PATH, id);
    h.raw(" <span class=\"muted\">editing version <span id=\"editing-version\">")
        .num(version)
        .raw("</span></span></p>");
    let mut by_field: HashMap<String, Vec<&str>> = HashMap::new();
    let mut other = Vec::new();
    if let Some(p) = problem {
        for e in &p.errors {
            let field = e.path.trim_start_matches('/');
            if R::FIELDS.iter().any(|f| f.name == field) {
                by_field.entry(field.to_owned()).or_default().push(&e.message);
            } else {
                other.push(e.clone());
            }
        }
        if p.code == Code::VersionMismatch || p.code == Code::Conflict {
            let p = conflict_detail(p.clone(), version);
            h.raw("<div class=\"error\" role=\"alert\" id=\"conflict\"><p>")
                .text(&p.detail)
                .raw("</p><p>Your text is kept below. <a href=\"/console/")
                .raw(R::PATH)
                .raw("/")
                .text(&id_url)
                .raw("/edit\">Open the current version</a> and apply your change again.</p></div>");
        } else {
            h.raw("<div class=\"error\" role=\"alert\" id=\"form-errors\"><p>")
                .text(&p.detail)
                .raw(": nothing was saved. Correct the fields marked below.</p>");
            page::violations(&mut h, &other);
            h.raw("</div>");
        }
    }
    h.raw("<form method=\"post\" action=\"/console/")
        .raw(R::PATH)
        .raw("/")
        .text(&id_url)
        .raw("/edit\" novalidate>");
    csrf_field(&mut h, session);
    h.raw("<input type=\"hidden\" name=\"version\" value=\"").num(version).raw("\">");
    for f in R::FIELDS {
        let value = values.get(f.name).map(String::as_str).unwrap_or("");
        let errors = by_field.get(f.name);
        h.raw("<div class=\"field\"><label for=\"field-")
            .raw(f.name)
            .raw("\">")
            .raw(f.label)
            .raw("</label>");
        let invalid: &'static str =
            if errors.is_some() { " aria-invalid=\"true\" aria-describedby=\"error-" } else { "" };
        if f.multiline {
            h.raw("<textarea id=\"field-").raw(f.name).raw("\" name=\"").raw(f.name).raw("\"");
            if errors.is_some() {
                h.raw(invalid).raw(f.name).raw("\"");
            }
            h.raw(">").text(value).raw("</textarea>");
        } else {
            h.raw("<input type=\"text\" id=\"field-")
                .raw(f.name)
                .raw("\" name=\"")
                .raw(f.name)
                .raw("\"");
            if errors.is_some() {
                h.raw(invalid).raw(f.name).raw("\"");
            }
            h.raw(" value=\"").text(value).raw("\">");
        }
        if let Some(messages) = errors {
            h.raw("<p class=\"field-error\" id=\"error-").raw(f.name).raw("\">");
            for (i, m) in messages.iter().enumerate() {
                if i > 0 {
                    h.raw("; ");
                }
                h.text(m);
            }
            h.raw("</p>");
        }
        h.raw("</div>");
    }
    h.raw("<div class=\"actions\"><button type=\"submit\" id=\"save\">Save</button>")
        .raw("<a href=\"/console/")
        .raw(R::PATH)
        .raw("/")
        .text(&id_url)
        .raw("\">Cancel</a></div></form>");
    page::respond(status, page::page(&format!("Edit {} {id}", R::NOUN), Some(session), h))
}
