//! The edit form and the lifecycle buttons. Writes go through the service as the
//! signed-in principal, with the version the page showed as the precondition (what
//! `If-Match` is to the API): a stale page is a clear conflict, never a lost update.
//! The role is checked by the service, as for the API.

use std::collections::HashMap;

use axum::extract::Path;
use axum::response::{IntoResponse, Redirect, Response};
use http::StatusCode;
use maud::{Markup, html};
use registry_api::http::Code;
use registry_api::service::{Outcome, Precondition};
use registry_api::{Problem, Role};
use serde_json::{Map, Value, json};

use crate::html::url_component;
use crate::kind::{Field, Kind};
use crate::page;
use crate::parts::{Control, csrf_field, error_box, field, link};
use crate::posted::Posted;
use crate::session::{Session, SignedIn};

/// `GET /console/{agents|tools}/{id}/edit`.
pub async fn form<R: Kind>(
    SignedIn(console, session): SignedIn,
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
        Ok(d) => d,
        Err(e) => return page::problem(&session, &Problem::from(e)),
    };
    let values: HashMap<String, String> =
        R::FIELDS.iter().map(|f| (f.name.to_owned(), (f.read)(&current).to_owned())).collect();
    render::<R>(&session, &id, current.version(), &values, None, StatusCode::OK)
}

/// `POST /console/{agents|tools}/{id}/edit`: a JSON Merge Patch of the form's fields at
/// the page's version; then the history with the change.
pub async fn submit<R: Kind>(Path(id): Path<String>, form: Posted) -> Response {
    let console = &form.console;
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
pub async fn lifecycle<R: Kind>(Path(id): Path<String>, form: Posted) -> Response {
    let console = &form.console;
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

/// The input of field `f` holding `value`, with the service's `messages` about it.
fn edit_field<R: Kind>(f: &Field<R>, value: &str, messages: Option<&Vec<&str>>) -> Markup {
    let error_id = format!("error-{}", f.name);
    let error = messages.map(|m| (error_id.as_str(), html! { (m.join("; ")) }));
    let control = if f.multiline { Control::TextArea } else { Control::Text(None) };
    field((&format!("field-{}", f.name), f.name), html! { (f.label) }, control, value, error)
}

fn render<R: Kind>(
    session: &Session,
    id: &str,
    version: u64,
    values: &HashMap<String, String>,
    problem: Option<&Problem>,
    status: StatusCode,
) -> Response {
    let base = format!("/console/{}/{}", R::PATH, url_component(id));
    let mut by_field: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut other = Vec::new();
    for e in problem.map(|p| p.errors.as_slice()).unwrap_or_default() {
        let field = e.path.trim_start_matches('/');
        match R::FIELDS.iter().find(|f| f.name == field) {
            Some(f) => by_field.entry(f.name).or_default().push(&e.message),
            None => other.push(e.clone()),
        }
    }
    let body = html! {
        p {
            (link(R::PATH, id)) " "
            span.muted { "editing version " span #editing-version { (version) } }
        }
        @if let Some(p) = problem {
            @if p.code == Code::VersionMismatch || p.code == Code::Conflict {
                div.error role="alert" #conflict {
                    p { (conflict_detail(p.clone(), version).detail) }
                    p {
                        "Your text is kept below. "
                        a href={ (base) "/edit" } { "Open the current version" }
                        " and apply your change again."
                    }
                }
            } @else {
                (error_box(
                    Some("form-errors"),
                    &format!("{}: nothing was saved. Correct the fields marked below.", p.detail),
                    &other,
                ))
            }
        }
        form method="post" action={ (base) "/edit" } novalidate {
            (csrf_field(session))
            input type="hidden" name="version" value=(version);
            @for f in R::FIELDS {
                @let value = values.get(f.name).map(String::as_str).unwrap_or_default();
                (edit_field(f, value, by_field.get(f.name)))
            }
            div.actions {
                button type="submit" #save { "Save" }
                a href=(base) { "Cancel" }
            }
        }
    };
    page::reply(status, &format!("Edit {} {id}", R::NOUN), session, body)
}
