//! Signed principal contexts, verified once per container: a session sends the same
//! token on every call, so a token seen before (byte for byte) skips the MAC; its
//! expiry is checked on every call all the same.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use registry_access::signed::{KeyRing, MAX_SIGNED_BYTES, SignedContextError, VerifiedPayload};

/// Most tokens remembered; past it the memory starts over.
const MAX_REMEMBERED: usize = 64;

/// Tokens verified so far with their payloads, by MAC (the token's last part: short
/// to hash; the whole token is compared on a hit).
#[derive(Debug, Default)]
pub(crate) struct Verified {
    seen: Mutex<HashMap<String, (String, Arc<VerifiedPayload>)>>,
}

impl Verified {
    /// `token`'s payload, verified by `keys` at `now_s` (Unix seconds).
    pub fn verify(
        &self,
        keys: &KeyRing,
        token: &str,
        now_s: i64,
    ) -> Result<Arc<VerifiedPayload>, SignedContextError> {
        if token.len() > MAX_SIGNED_BYTES {
            return Err(SignedContextError::Malformed);
        }
        let mac = token.rsplit_once('.').map_or(token, |(_, mac)| mac);
        let hit = self
            .seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(mac)
            .filter(|(seen, _)| seen == token)
            .map(|(_, payload)| Arc::clone(payload));
        if let Some(payload) = hit {
            return if now_s >= payload.expires_at() {
                Err(SignedContextError::Expired(payload.expires_at()))
            } else {
                Ok(payload)
            };
        }
        let payload = Arc::new(keys.verify_payload(token, now_s)?);
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.len() >= MAX_REMEMBERED {
            seen.clear();
        }
        seen.insert(mac.to_owned(), (token.to_owned(), payload.clone()));
        Ok(payload)
    }
}
