//! Signing in with a token (checked by the API's own authenticator) and out.

use axum::Form;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use http::request::Parts;
use http::{HeaderValue, StatusCode, header};
use serde::Deserialize;

use crate::Console;
use crate::html::Html;
use crate::page::{page, respond};
use crate::posted::Posted;
use crate::session::{self, COOKIE};

/// The sign-in form's fields.
#[derive(Debug, Deserialize)]
pub struct SignInForm {
    /// A registry token (as for `Authorization: Bearer`).
    #[serde(default)]
    pub token: String,
}

/// `GET /console`: the agents list, or the sign-in page.
pub async fn home(State(console): State<Console>, parts: Parts) -> Redirect {
    match session::cookie(&parts, COOKIE).and_then(|id| console.sessions.get(id)) {
        Some(_) => Redirect::to("/console/agents"),
        None => Redirect::to("/console/sign-in"),
    }
}

/// `GET /`: a browser opening the server is sent to the console.
pub async fn root() -> Redirect {
    Redirect::to("/console")
}

/// `GET /console/sign-in`.
pub async fn form() -> Response {
    respond(StatusCode::OK, sign_in_page(None))
}

fn sign_in_page(error: Option<&str>) -> Html {
    let mut body = Html::new();
    body.raw("<form method=\"post\" action=\"/console/sign-in\" class=\"sign-in\">");
    if let Some(e) = error {
        body.raw("<div class=\"error\" role=\"alert\" id=\"sign-in-error\">").text(e).raw("</div>");
    }
    body.raw("<div class=\"field\"><label for=\"token\">Token</label>")
        .raw("<input type=\"password\" id=\"token\" name=\"token\" autocomplete=\"current-password\" ")
        .raw("required autofocus aria-describedby=\"token-hint\"")
        .raw(if error.is_some() { " aria-invalid=\"true\"" } else { "" })
        .raw("><p class=\"hint\" id=\"token-hint\">The token <code>agent-registry serve</code> ")
        .raw("printed on its first run, or one from <code>agent-registry tokens add</code>. ")
        .raw("It is checked once; the console then keeps a session cookie, never the token.</p>")
        .raw("</div><button type=\"submit\">Sign in</button></form>");
    page("Sign in", None, body)
}

/// `POST /console/sign-in`: the token is authenticated exactly as an API request
/// carrying it would be; on success a session starts.
pub async fn submit(
    State(console): State<Console>,
    mut parts: Parts,
    Form(form): Form<SignInForm>,
) -> Response {
    if !session::same_origin(&parts) {
        return respond(StatusCode::FORBIDDEN, sign_in_page(Some("Cross-site sign-in refused.")));
    }
    let token = form.token.trim();
    let Ok(value) = HeaderValue::from_str(&format!("Bearer {token}")) else {
        return refused();
    };
    parts.headers.insert(header::AUTHORIZATION, value);
    match console.api.authenticator.authenticate(&parts) {
        Ok(principal) => {
            tracing::info!(principal = %principal.name, "console sign-in");
            let Some(session) = console.sessions.start(principal) else {
                tracing::warn!(
                    max = session::MAX_SESSIONS,
                    "console sign-in refused: sessions full"
                );
                let message = "The console holds as many sessions as it can; sign in again later.";
                return respond(StatusCode::SERVICE_UNAVAILABLE, sign_in_page(Some(message)));
            };
            let cookie = session::set_cookie(&session, session::is_https(&parts));
            let mut response = Redirect::to("/console/agents").into_response();
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                response.headers_mut().insert(header::SET_COOKIE, v);
            }
            response
        }
        Err(_) => refused(),
    }
}

fn refused() -> Response {
    respond(
        StatusCode::UNAUTHORIZED,
        sign_in_page(Some(
            "That token was not accepted. Check for a missing character, or mint a new one \
             with `agent-registry tokens add NAME --role reader|editor|admin`.",
        )),
    )
}

/// `POST /console/sign-out`: ends the session.
pub async fn sign_out(State(console): State<Console>, form: Posted) -> Response {
    console.sessions.end(&form.session.id);
    let mut response = Redirect::to("/console/sign-in").into_response();
    if let Ok(v) = HeaderValue::from_str(&session::clear_cookie()) {
        response.headers_mut().insert(header::SET_COOKIE, v);
    }
    response
}
