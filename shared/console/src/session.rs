//! Console sessions: a signed-in principal behind an opaque `HttpOnly`,
//! `SameSite=Strict` cookie, with a per-session CSRF token for forms.
//!
//! Sessions live in this process's memory: signing out or restarting the server ends
//! them (tokens are read at start, so a revoked token never outlives a restart). The
//! principal was authenticated once, at sign-in, by the API's own
//! [`Authenticator`](registry_api::Authenticator); the service layer checks its role on
//! every call.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::FromRequestParts;
use axum::response::{IntoResponse, Redirect, Response};
use http::request::Parts;
use rand::RngCore as _;
use registry_api::Principal;

use crate::Console;

/// Name of the session cookie.
pub const COOKIE: &str = "ar_console";
/// How long a session lasts after sign-in.
pub const TTL: Duration = Duration::from_secs(8 * 60 * 60);
/// Most sessions held at once (the oldest are dropped beyond it).
pub const MAX_SESSIONS: usize = 10_000;

/// A signed-in user.
#[derive(Debug, Clone)]
pub struct Session {
    /// Who signed in, with their role.
    pub principal: Principal,
    /// The token forms carry to prove they come from this session's pages.
    pub csrf: String,
    /// The cookie value naming this session.
    pub id: String,
    expires: Instant,
}

/// Every live session of this process.
#[derive(Debug, Default)]
pub struct Sessions {
    by_id: Mutex<HashMap<String, Session>>,
}

impl Sessions {
    /// Starts a session for `principal`.
    pub fn start(&self, principal: Principal) -> Session {
        let session = Session {
            principal,
            csrf: random_hex(),
            id: random_hex(),
            expires: Instant::now() + TTL,
        };
        if let Ok(mut map) = self.by_id.lock() {
            let now = Instant::now();
            map.retain(|_, s| s.expires > now);
            if map.len() >= MAX_SESSIONS
                && let Some(oldest) = map.values().min_by_key(|s| s.expires).map(|s| s.id.clone())
            {
                map.remove(&oldest);
            }
            map.insert(session.id.clone(), session.clone());
        }
        session
    }

    /// The live session named by `id`.
    pub fn get(&self, id: &str) -> Option<Session> {
        let map = self.by_id.lock().ok()?;
        map.get(id).filter(|s| s.expires > Instant::now()).cloned()
    }

    /// Ends the session `id`.
    pub fn end(&self, id: &str) {
        if let Ok(mut map) = self.by_id.lock() {
            map.remove(id);
        }
    }
}

/// 256 random bits as hex.
fn random_hex() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The value of cookie `name` in the request's `Cookie` headers.
pub fn cookie<'a>(parts: &'a Parts, name: &str) -> Option<&'a str> {
    parts
        .headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// The `Set-Cookie` value of a new session (`Secure` when the request came over HTTPS,
/// as API Gateway says in `X-Forwarded-Proto`).
pub fn set_cookie(session: &Session, secure: bool) -> String {
    format!(
        "{COOKIE}={}; Path=/console; HttpOnly; SameSite=Strict; Max-Age={}{}",
        session.id,
        TTL.as_secs(),
        if secure { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie() -> String {
    format!("{COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0")
}

/// Whether a request came over HTTPS (behind API Gateway or a TLS proxy).
pub fn is_https(parts: &Parts) -> bool {
    parts
        .headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("https"))
}

/// Whether a form post is this session's: its CSRF token matches (compared without
/// stopping at the first difference).
pub fn csrf_ok(session: &Session, token: &str) -> bool {
    let (a, b) = (session.csrf.as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether the request's `Origin`, when the browser sends one, is this server: a
/// cross-site form post is refused even before its CSRF token is read.
pub fn same_origin(parts: &Parts) -> bool {
    let Some(origin) = parts.headers.get(http::header::ORIGIN) else {
        return true;
    };
    let host = parts.headers.get(http::header::HOST).and_then(|h| h.to_str().ok());
    let origin = origin.to_str().ok().and_then(|o| o.split_once("://")).map(|(_, h)| h);
    matches!((origin, host), (Some(o), Some(h)) if o.eq_ignore_ascii_case(h))
}

/// The signed-in user of a console request; anyone else is sent to the sign-in page.
#[derive(Debug, Clone)]
pub struct SignedIn(pub Session);

impl FromRequestParts<Console> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &Console) -> Result<Self, Response> {
        let session = cookie(parts, COOKIE).and_then(|id| state.sessions.get(id));
        match session {
            Some(session) => {
                tracing::Span::current()
                    .record("principal", tracing::field::display(&session.principal.name));
                Ok(Self(session))
            }
            None => Err(Redirect::to("/console/sign-in").into_response()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use registry_api::Role;

    #[test]
    fn sessions_start_find_and_end() {
        let sessions = Sessions::default();
        let s = sessions.start(Principal::new("ann", Role::Reader));
        assert_eq!(s.id.len(), 64);
        assert_ne!(s.id, s.csrf);
        assert_eq!(sessions.get(&s.id).map(|s| s.principal.name), Some("ann".to_owned()));
        assert!(csrf_ok(&s, &s.csrf.clone()));
        assert!(!csrf_ok(&s, "x"));
        sessions.end(&s.id);
        assert!(sessions.get(&s.id).is_none());
    }

    #[test]
    fn cookies_and_origins_are_read_from_headers() {
        let (mut parts, ()) = http::Request::builder()
            .header("cookie", "a=1; ar_console=abc")
            .header("host", "127.0.0.1:8080")
            .header("origin", "http://127.0.0.1:8080")
            .body(())
            .map(http::Request::into_parts)
            .unwrap_or_else(|_| http::Request::new(()).into_parts());
        assert_eq!(cookie(&parts, COOKIE), Some("abc"));
        assert!(same_origin(&parts));
        parts.headers.insert("origin", http::HeaderValue::from_static("https://evil.example"));
        assert!(!same_origin(&parts));
    }
}
