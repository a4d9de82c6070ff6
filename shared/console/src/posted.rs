//! A form posted from one of the session's own pages: signed in, same origin, with the
//! session's CSRF token. Anything else is refused before a handler runs.

use std::collections::HashMap;

use axum::Form;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use registry_api::Problem;
use registry_api::http::Code;

use crate::Console;
use crate::page;
use crate::session::{self, Session, SignedIn};

/// The console, the session and the posted fields of a checked form.
#[derive(Debug, Clone)]
pub struct Posted {
    /// The console's state.
    pub console: Console,
    /// Who posted it.
    pub session: Session,
    /// The form's fields by name.
    pub fields: HashMap<String, String>,
}

impl Posted {
    /// The field `name`, or "".
    pub fn field(&self, name: &str) -> &str {
        self.fields.get(name).map_or("", String::as_str)
    }

    /// The page's version (the `version` field), when it is a number.
    pub fn version(&self) -> Option<u64> {
        self.field("version").parse().ok()
    }
}

impl FromRequest<Console> for Posted {
    type Rejection = Response;

    async fn from_request(request: Request, state: &Console) -> Result<Self, Response> {
        let (mut parts, body) = request.into_parts();
        let SignedIn(console, session) = SignedIn::from_request_parts(&mut parts, state).await?;
        let same_origin = session::same_origin(&parts);
        let request = Request::from_parts(parts, body);
        let Form(fields) = Form::<HashMap<String, String>>::from_request(request, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let posted = Self { console, session, fields };
        if same_origin && session::csrf_ok(&posted.session, posted.field("csrf")) {
            return Ok(posted);
        }
        let problem = Problem::new(
            StatusCode::FORBIDDEN,
            Code::Forbidden,
            "this form did not come from your console session (missing or wrong CSRF token)",
        );
        Err(page::problem(&posted.session, &problem))
    }
}
