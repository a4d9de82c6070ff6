//! The page frame (head, navigation, who is signed in) and the responses pages and
//! errors are sent as.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use maud::{DOCTYPE, Markup, html};
use registry_api::Problem;

use crate::parts::{csrf_field, error_box};
use crate::session::Session;

/// A complete page: `title`, the navigation for `session` (none on the sign-in page)
/// and `body`.
pub fn page(title: &str, session: Option<&Session>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · agent-registry" }
                link rel="stylesheet" href="/console/static/console.css";
                script src="/console/static/console.js" defer {}
            }
            body {
                a.skip href="#main" { "Skip to content" }
                header.top {
                    a.brand href="/console" { "agent-registry" }
                    @if let Some(s) = session {
                        nav aria-label="Main" {
                            a href="/console/agents" { "Agents" }
                            a href="/console/tools" { "Tools" }
                            a href="/console/proposals" { "Proposals" }
                            a href="/console/events" { "Events" }
                        }
                        form.who method="post" action="/console/sign-out" {
                            span #who {
                                (s.principal.name) " " span.role { (s.principal.role.as_str()) }
                            }
                            (csrf_field(s))
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main #main tabindex="-1" { h1 { (title) } (body) }
            }
        }
    }
}

/// An HTML response.
pub fn respond(status: StatusCode, html: Markup) -> Response {
    let mut response = (status, html.into_string()).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    response
}

/// A page of the signed-in `session` answered with `status`.
pub fn reply(status: StatusCode, title: &str, session: &Session, body: Markup) -> Response {
    respond(status, page(title, Some(session), body))
}

/// A 200 page.
pub fn ok(title: &str, session: &Session, body: Markup) -> Response {
    reply(StatusCode::OK, title, session, body)
}

/// A page explaining `problem` (its status, detail and every violation) with what to
/// do next.
pub fn problem(session: &Session, problem: &Problem) -> Response {
    let body = html! {
        div.error role="alert" {
            p { (problem.detail) }
            (crate::parts::violations(&problem.errors))
            p.hint { (hint(problem.status)) }
        }
    };
    reply(problem.status_code(), problem.title, session, body)
}

/// The problem's detail and violations in a box within a page (`id` names the box).
pub fn problem_box(id: Option<&str>, problem: &Problem) -> Markup {
    error_box(id, &problem.detail, &problem.errors)
}

/// What to do about an error of `status`.
fn hint(status: u16) -> &'static str {
    match status {
        401 => "Sign in again.",
        403 => "Your role does not allow this; ask an admin for a token with a higher role.",
        404 => "Check the id, or find it from the lists.",
        409 | 412 => "Reload the page to see the current version, then try again.",
        400 | 422 => "Correct the values listed above and send the form again.",
        _ => "Try again; if it keeps failing, the server log has the details.",
    }
}
