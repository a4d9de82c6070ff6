//! The page frame (head, navigation, who is signed in) and the responses pages and
//! errors are sent as.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use registry_api::Problem;
use serde_json::Value;

use crate::html::{Html, url_component};
use crate::session::Session;

/// A complete page: `title`, the navigation for `session` (none on the sign-in page)
/// and `body`.
pub fn page(title: &str, session: Option<&Session>, body: Html) -> Html {
    let mut h = Html::new();
    h.raw("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .el("<title>", title, " · agent-registry</title>")
        .raw("<link rel=\"stylesheet\" href=\"/console/static/console.css\">")
        .raw("<script src=\"/console/static/console.js\" defer></script></head><body>")
        .raw("<a class=\"skip\" href=\"#main\">Skip to content</a><header class=\"top\">")
        .raw("<a class=\"brand\" href=\"/console\">agent-registry</a>");
    if let Some(s) = session {
        h.raw("<nav aria-label=\"Main\"><a href=\"/console/agents\">Agents</a>")
            .raw("<a href=\"/console/tools\">Tools</a>")
            .raw("<a href=\"/console/proposals\">Proposals</a>")
            .raw("<a href=\"/console/events\">Events</a></nav>")
            .raw("<form class=\"who\" method=\"post\" action=\"/console/sign-out\">")
            .raw("<span id=\"who\">")
            .text(&s.principal.name)
            .raw(" <span class=\"role\">")
            .text(s.principal.role.as_str())
            .raw("</span></span>");
        csrf_field(&mut h, s);
        h.raw("<button type=\"submit\">Sign out</button></form>");
    }
    h.raw("</header><main id=\"main\" tabindex=\"-1\">").el("<h1>", title, "</h1>");
    h.append(body);
    h.raw("</main></body></html>");
    h
}

/// The hidden CSRF field every form of a session carries.
pub fn csrf_field(h: &mut Html, session: &Session) {
    h.raw("<input type=\"hidden\" name=\"csrf\" value=\"").text(&session.csrf).raw("\">");
}

/// An HTML response.
pub fn respond(status: StatusCode, html: Html) -> Response {
    let mut response = (status, html.into_string()).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    response
}

/// A 200 page.
pub fn ok(title: &str, session: &Session, body: Html) -> Response {
    respond(StatusCode::OK, page(title, Some(session), body))
}

/// A page explaining `problem` (its status, detail and every violation) with what to
/// do next.
pub fn problem(session: &Session, problem: &Problem) -> Response {
    let mut body = Html::new();
    body.raw("<div class=\"error\" role=\"alert\">").el("<p>", &problem.detail, "</p>");
    violations(&mut body, &problem.errors);
    body.el("<p class=\"hint\">", hint(problem.status), "</p></div>");
    respond(problem.status_code(), page(problem.title, Some(session), body))
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

/// Violations as a list: pointer and message.
pub fn violations(h: &mut Html, errors: &[registry_core::Violation]) {
    if errors.is_empty() {
        return;
    }
    h.raw("<ul class=\"violations\">");
    for e in errors {
        h.el("<li><code>", if e.path.is_empty() { "/" } else { &e.path }, "</code> ")
            .text(&e.message)
            .raw("</li>");
    }
    h.raw("</ul>");
}

/// A link to the console page of a definition.
pub fn link(h: &mut Html, path: &'static str, id: &str) {
    h.raw("<a href=\"/console/")
        .raw(path)
        .raw("/")
        .text(&url_component(id))
        .raw("\">")
        .text(id)
        .raw("</a>");
}

/// A string member of a JSON object, or "".
pub fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The lifecycle status of a definition's JSON (`active` when absent).
pub fn status_of(v: &Value) -> &str {
    v.pointer("/lifecycle/status").and_then(Value::as_str).unwrap_or("active")
}

/// A status badge.
pub fn badge(h: &mut Html, status: &str) {
    h.raw("<span class=\"badge badge-").text(status).raw("\">").text(status).raw("</span>");
}

/// Tags as `key=value` chips.
pub fn tags(h: &mut Html, v: &Value) {
    if let Some(tags) = v.get("tags").and_then(Value::as_object) {
        for (k, val) in tags {
            h.raw("<span class=\"tag\">")
                .text(k)
                .raw("=")
                .text(val.as_str().unwrap_or(""))
                .raw("</span> ");
        }
    }
}

/// Any JSON value as readable text: strings bare, the rest as JSON.
pub fn json_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A JSON value pretty-printed in a `<pre>`.
pub fn pre_json(h: &mut Html, v: &Value) {
    let text = serde_json::to_string_pretty(v).unwrap_or_default();
    h.el("<pre class=\"json\">", &text, "</pre>");
}
