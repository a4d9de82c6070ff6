//! Signing in with a token (checked by the API's own authenticator) and out.

use axum::Form;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use http::request::Parts;
use http::{HeaderValue, StatusCode, header};
use serde::Deserialize;

use maud::{Markup, html};

use crate::Console;
use crate::page::{page, respond};
use crate::posted::Posted;
use crate::session::{self, COOKIE};

/// The sign-in form's fields.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SignInForm {
    /// A registry token (as for `Authorization: Bearer`).
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

fn sign_in_page(error: Option<&str>) -> Markup {
    let body = html! {
        form.sign-in method="post" action="/console/sign-in" {
            @if let Some(e) = error { div.error role="alert" #sign-in-error { (e) } }
            div.field {
                label for="token" { "Token" }
                input type="password" id="token" name="token" autocomplete="current-password"
                    required autofocus aria-describedby="token-hint"
                    aria-invalid=[error.map(|_| "true")];
                p.hint #token-hint {
                    "The token " code { "agent-registry serve" } " printed on its first run, or "
                    "one from " code { "agent-registry tokens add" } ". It is checked once; the "
                    "console then keeps a session cookie, never the token."
                }
            }
            button type="submit" { "Sign in" }
        }
    };
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
pub async fn sign_out(form: Posted) -> Response {
    form.console.sessions.end(&form.session.id);
    let mut response = Redirect::to("/console/sign-in").into_response();
    if let Ok(v) = HeaderValue::from_str(&session::clear_cookie()) {
        response.headers_mut().insert(header::SET_COOKIE, v);
    }
    response
}
