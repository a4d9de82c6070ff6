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
/// Most sessions held at once; a sign-in beyond it is refused (it never ends someone
/// else's session).
pub const MAX_SESSIONS: usize = 10_000;
/// Most sessions of one principal; a sign-in beyond it ends that principal's oldest.
pub const MAX_SESSIONS_PER_PRINCIPAL: usize = 16;

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
    /// Starts a session for `principal`, ending that principal's oldest session when it
    /// has [`MAX_SESSIONS_PER_PRINCIPAL`] already; `None` when [`MAX_SESSIONS`] other
    /// sessions are live (no sign-in ends another principal's session).
    pub fn start(&self, principal: Principal) -> Option<Session> {
        let session = Session {
            principal,
            csrf: random_hex(),
            id: random_hex(),
            expires: Instant::now() + TTL,
        };
        let mut map = self.by_id.lock().ok()?;
        let now = Instant::now();
        map.retain(|_, s| s.expires > now);
        let own = map.values().filter(|s| s.principal.name == session.principal.name);
        let (count, oldest) = own.fold((0, None::<&Session>), |(n, oldest), s| {
            (n + 1, Some(oldest.filter(|o| o.expires <= s.expires).unwrap_or(s)))
        });
        if count >= MAX_SESSIONS_PER_PRINCIPAL
            && let Some(id) = oldest.map(|s| s.id.clone())
        {
            map.remove(&id);
        } else if map.len() >= MAX_SESSIONS {
            return None;
        }
        map.insert(session.id.clone(), session.clone());
        Some(session)
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

/// Whether a form post comes from this server's pages: its `Origin`, or without one its
/// `Referer`, has this server's scheme, host and port (`https` when
/// [`is_https`], the `Host` header; default ports made explicit). A post with neither,
/// or with another origin, is refused even before its CSRF token is read.
pub fn same_origin(parts: &Parts) -> bool {
    let header = |name| parts.headers.get(name).and_then(|v| v.to_str().ok());
    let Some(host) = header(http::header::HOST) else {
        return false;
    };
    let scheme = if is_https(parts) { "https" } else { "http" };
    let Some(own) = origin_of(&format!("{scheme}://{host}/")) else {
        return false;
    };
    let sent = match header(http::header::ORIGIN) {
        Some(origin) => origin_of(origin),
        None => header(http::header::REFERER).and_then(origin_of),
    };
    sent.is_some_and(|sent| sent == own)
}

/// The scheme, host and port of `url`, for an http or https URL without a user.
fn origin_of(url: &str) -> Option<url::Origin> {
    let url = url::Url::parse(url).ok()?;
    let plain = matches!(url.scheme(), "http" | "https")
        && url.username().is_empty()
        && url.password().is_none();
    plain.then(|| url.origin())
}

/// A console request of a signed-in user: the console's state and the session; anyone
/// else is sent to the sign-in page.
#[derive(Debug, Clone)]
pub struct SignedIn(pub Console, pub Session);

impl FromRequestParts<Console> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &Console) -> Result<Self, Response> {
        let session = cookie(parts, COOKIE).and_then(|id| state.sessions.get(id));
        match session {
            Some(session) => {
                tracing::Span::current()
                    .record("principal", tracing::field::display(&session.principal.name));
                Ok(Self(state.clone(), session))
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
        let s = sessions.start(Principal::new("ann", Role::Reader)).unwrap();
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
        // The scheme counts: this server answered over http.
        parts.headers.insert("origin", http::HeaderValue::from_static("https://127.0.0.1:8080"));
        assert!(!same_origin(&parts));
        // Without Origin, the Referer decides; without either, the post is refused.
        parts.headers.remove("origin");
        assert!(!same_origin(&parts));
        parts.headers.insert("referer", http::HeaderValue::from_static("http://evil.example/x"));
        assert!(!same_origin(&parts));
        let own = http::HeaderValue::from_static("http://127.0.0.1:8080/console/tools");
        parts.headers.insert("referer", own);
        assert!(same_origin(&parts));
        // Behind a TLS proxy the server's scheme is https, default port explicit or not.
        parts.headers.insert("x-forwarded-proto", http::HeaderValue::from_static("https"));
        parts.headers.insert("host", http::HeaderValue::from_static("registry.example"));
        parts
            .headers
            .insert("origin", http::HeaderValue::from_static("https://registry.example:443"));
        assert!(same_origin(&parts));
        parts.headers.insert("origin", http::HeaderValue::from_static("http://registry.example"));
        assert!(!same_origin(&parts));
    }
}
