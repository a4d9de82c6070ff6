//! Principal tokens, verified once per container: a session sends the same token on
//! every call, so a token seen before (byte for byte) skips the signature; its expiry is
//! checked on every call all the same.

use std::sync::Arc;

use registry_token::{KeySource, MAX_TOKEN_BYTES, Principal, TokenError};

/// Most tokens remembered; when full, the one least worth keeping makes room
/// (decision 81).
const MAX_REMEMBERED: usize = 64;

/// Characters of the signature that key the cache (short to hash; the whole token is
/// compared on a hit).
const KEY_CHARS: usize = 32;

/// Tokens verified so far with their claims, by the end of their signature.
#[derive(Debug)]
pub(crate) struct Verified {
    seen: quick_cache::sync::Cache<String, Arc<(String, Arc<Principal>)>>,
}

impl Default for Verified {
    fn default() -> Self {
        Self { seen: quick_cache::sync::Cache::new(MAX_REMEMBERED) }
    }
}

impl Verified {
    /// `token`'s claims, verified with `keys` at `now_s` (Unix seconds).
    pub async fn verify(
        &self,
        keys: &KeySource,
        token: &str,
        now_s: i64,
    ) -> Result<Arc<Principal>, TokenError> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::TooLarge(token.len()));
        }
        let key = token.get(token.len().saturating_sub(KEY_CHARS)..).unwrap_or(token);
        let hit = self.seen.get(key).filter(|seen| seen.0 == token).map(|seen| Arc::clone(&seen.1));
        if let Some(principal) = hit {
            return if now_s >= principal.expires_at() {
                Err(TokenError::Expired(principal.expires_at()))
            } else {
                Ok(principal)
            };
        }
        let principal = Arc::new(keys.verify(token, now_s).await?);
        self.seen.insert(key.to_owned(), Arc::new((token.to_owned(), Arc::clone(&principal))));
        Ok(principal)
    }
}
