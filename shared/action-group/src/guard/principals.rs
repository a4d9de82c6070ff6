//! Signed principal contexts, verified once per container: a session sends the same
//! token on every call, so a token seen before (byte for byte) skips the MAC and the
//! parse; its expiry is checked on every call all the same.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use registry_access::signed::{KeyRing, MAX_SIGNED_BYTES, Principal, SignedContextError};

/// Most tokens remembered; past it the memory starts over.
const MAX_REMEMBERED: usize = 64;

/// Tokens verified so far, with what they say and when they expire.
#[derive(Debug, Default)]
pub(crate) struct Verified {
    seen: Mutex<HashMap<String, (Arc<Principal>, i64)>>,
}

impl Verified {
    /// What `token` says, verified by `keys` at `now_s` (Unix seconds).
    pub fn verify(
        &self,
        keys: &KeyRing,
        token: &str,
        now_s: i64,
    ) -> Result<Arc<Principal>, SignedContextError> {
        if token.len() > MAX_SIGNED_BYTES {
            return Err(SignedContextError::Malformed);
        }
        let hit = self.seen.lock().unwrap_or_else(PoisonError::into_inner).get(token).cloned();
        if let Some((principal, expires_at)) = hit {
            return if now_s >= expires_at {
                Err(SignedContextError::Expired(expires_at))
            } else {
                Ok(principal)
            };
        }
        let principal = Arc::new(keys.verify(token, now_s)?);
        // verified, so of the form `v1.<keyId>.<expiresAt>.<payload>.<mac>`
        let expires_at = token
            .split('.')
            .nth(2)
            .and_then(|e| e.parse::<i64>().ok())
            .ok_or(SignedContextError::Malformed)?;
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.len() >= MAX_REMEMBERED {
            seen.clear();
        }
        seen.insert(token.to_owned(), (principal.clone(), expires_at));
        Ok(principal)
    }
}
