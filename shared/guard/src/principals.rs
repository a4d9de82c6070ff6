//! Signed principal contexts, verified once per container: a session sends the same
//! token on every call, so a token seen before (byte for byte) skips the MAC; its
//! expiry is checked on every call all the same.

use std::sync::Arc;

use registry_access::signed::{KeyRing, MAX_SIGNED_BYTES, SignedContextError, VerifiedPayload};

/// Most tokens remembered; when full, the one least worth keeping makes room
/// (decision 81).
const MAX_REMEMBERED: usize = 64;

/// Tokens verified so far with their payloads, by MAC (the token's last part: short
/// to hash; the whole token is compared on a hit).
#[derive(Debug)]
pub(crate) struct Verified {
    seen: quick_cache::sync::Cache<String, Arc<(String, Arc<VerifiedPayload>)>>,
}

impl Default for Verified {
    fn default() -> Self {
        Self { seen: quick_cache::sync::Cache::new(MAX_REMEMBERED) }
    }
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
        let hit = self.seen.get(mac).filter(|seen| seen.0 == token).map(|seen| Arc::clone(&seen.1));
        if let Some(payload) = hit {
            return if now_s >= payload.expires_at() {
                Err(SignedContextError::Expired(payload.expires_at()))
            } else {
                Ok(payload)
            };
        }
        let payload = Arc::new(keys.verify_payload(token, now_s)?);
        self.seen.insert(mac.to_owned(), Arc::new((token.to_owned(), Arc::clone(&payload))));
        Ok(payload)
    }
}
