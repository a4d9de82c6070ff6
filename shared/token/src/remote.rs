//! Verifying with the registry's published key set: a JWKS URL fetched on first use and
//! cached, re-fetched when old and on an unknown `kid` (at most once a minute), or a
//! JWKS document given once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::{JWKS_MAX_AGE, Principal, TokenError, Verifier};

/// Least time between two fetches for an unknown `kid` (a rotation seen early).
pub const UNKNOWN_KID_REFETCH: Duration = Duration::from_secs(60);
/// Bound on one fetch.
const FETCH_TIMEOUT: Duration = Duration::from_secs(2);

/// Where a verifier's keys come from.
#[derive(Debug)]
pub enum KeySource {
    /// A JWKS document given once (an environment variable).
    Document(Arc<Verifier>),
    /// A JWKS URL.
    Url(RemoteJwks),
}

impl KeySource {
    /// The issuer whose tokens these keys verify.
    pub fn issuer(&self) -> &str {
        match self {
            Self::Document(verifier) => verifier.issuer(),
            Self::Url(remote) => &remote.issuer,
        }
    }

    /// Verifies `token` at `now` (Unix seconds) with the current key set (fetched first
    /// when a URL's is missing, old, or lacks the token's `kid`).
    pub async fn verify(&self, token: &str, now: i64) -> Result<Principal, TokenError> {
        match self {
            Self::Document(verifier) => verifier.verify(token, now),
            Self::Url(remote) => {
                let kid = Verifier::key_id(token)?;
                remote.verifier_for(&kid).await?.verify(token, now)
            }
        }
    }
}

/// The key set of a JWKS URL, fetched and cached.
#[derive(Debug)]
pub struct RemoteJwks {
    url: String,
    issuer: String,
    audience: String,
    client: reqwest::Client,
    state: tokio::sync::Mutex<Fetched>,
}

#[derive(Debug, Default)]
struct Fetched {
    verifier: Option<(Arc<Verifier>, Instant)>,
    /// When the last fetch was tried, or when it failed if it did.
    tried: Option<Instant>,
    /// When a fetch was last made for an unknown `kid`.
    unknown_kid: Option<Instant>,
}

impl RemoteJwks {
    /// The key set at `url`, for tokens issued by `issuer` for `audience`.
    pub fn new(
        url: impl Into<String>,
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Self {
        let client = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Self {
            url: url.into(),
            issuer: issuer.into(),
            audience: audience.into(),
            client,
            state: tokio::sync::Mutex::default(),
        }
    }

    /// The verifier to check a token naming `kid` with: the cached set while it is
    /// younger than [`JWKS_MAX_AGE`] and knows `kid`; else a fresh fetch, except that a
    /// fetch for an unknown `kid` is tried at most once per [`UNKNOWN_KID_REFETCH`]
    /// (the cached set then answers, refusing the token).
    pub async fn verifier_for(&self, kid: &str) -> Result<Arc<Verifier>, TokenError> {
        let mut state = self.state.lock().await;
        let now = Instant::now();
        if let Some((verifier, at)) = &state.verifier {
            let fresh = now.duration_since(*at) < JWKS_MAX_AGE;
            let known = verifier.knows(kid);
            let recently =
                state.unknown_kid.is_some_and(|t| now.duration_since(t) < UNKNOWN_KID_REFETCH);
            if fresh && (known || recently) {
                return Ok(Arc::clone(verifier));
            }
            if fresh {
                state.unknown_kid = Some(now);
            }
        } else if state.tried.is_some_and(|t| now.duration_since(t) < Duration::from_secs(1)) {
            // no set yet and the last fetch just failed: fail closed without a new one
            return Err(TokenError::KeySetUnavailable("the last fetch failed".into()));
        }
        state.tried = Some(now);
        let fetched = self.fetch().await;
        if fetched.is_err() {
            state.tried = Some(Instant::now());
        }
        match fetched {
            Ok(verifier) => {
                let verifier = Arc::new(verifier);
                state.verifier = Some((Arc::clone(&verifier), now));
                Ok(verifier)
            }
            // a set fetched before keeps answering while the URL fails, until too old;
            // the failure's time, not the fetch's start, opens the window in which calls
            // fail closed without a fetch of their own (a fetch that hangs to its timeout
            // would otherwise have used the window up)
            Err(e) => match &state.verifier {
                Some((verifier, at)) if now.duration_since(*at) < JWKS_MAX_AGE * 2 => {
                    Ok(Arc::clone(verifier))
                }
                _ => Err(e),
            },
        }
    }

    async fn fetch(&self) -> Result<Verifier, TokenError> {
        let unavailable =
            |e: reqwest::Error| TokenError::KeySetUnavailable(e.without_url().to_string());
        let response = self.client.get(&self.url).send().await.map_err(unavailable)?;
        if !response.status().is_success() {
            return Err(TokenError::KeySetUnavailable(format!("status {}", response.status())));
        }
        let text = response.text().await.map_err(unavailable)?;
        Verifier::from_jwks_json(&text, self.issuer.clone(), self.audience.clone())
    }
}
