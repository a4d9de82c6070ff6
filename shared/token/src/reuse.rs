//! One signature per session (decision 112): a token issued for a request is answered
//! again for the same request (issuer, audience, user, agent, session, context text,
//! lifetime), the same grant and the same signing key, until [`reuse_margin`] before its
//! `exp`; anything else that differs issues a new one. Bounded by the bytes of the
//! tokens kept.

use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::{KeyRing, TokenError, TokenRequest};

/// Most bytes of tokens kept (each entry weighs its token's length plus
/// [`ENTRY_OVERHEAD`]): 16 MiB, some 20,000 sessions of 800-byte tokens.
pub const MAX_REUSED_BYTES: u64 = 16 * 1024 * 1024;
/// What an entry weighs besides its token (its key, times and bookkeeping).
const ENTRY_OVERHEAD: u64 = 96;
/// Longest margin before `exp` from which a kept token is no longer answered: a caller
/// holding it has at least this long to use it.
pub const REUSE_MARGIN_SECONDS: i64 = 300;

/// The margin for tokens valid `ttl_seconds`: [`REUSE_MARGIN_SECONDS`], or half the
/// lifetime when that is shorter.
pub fn reuse_margin(ttl_seconds: i64) -> i64 {
    REUSE_MARGIN_SECONDS.min(ttl_seconds / 2).max(0)
}

struct Kept {
    token: String,
    iat: i64,
    exp: i64,
}

#[derive(Clone)]
struct ByBytes;

impl quick_cache::Weighter<[u8; 32], Arc<Kept>> for ByBytes {
    fn weight(&self, _: &[u8; 32], kept: &Arc<Kept>) -> u64 {
        kept.token.len() as u64 + ENTRY_OVERHEAD
    }
}

/// The tokens issued, by what they were issued for.
pub struct IssuedTokens {
    kept: quick_cache::sync::Cache<[u8; 32], Arc<Kept>, ByBytes>,
}

impl Default for IssuedTokens {
    fn default() -> Self {
        Self::with_capacity(MAX_REUSED_BYTES)
    }
}

impl std::fmt::Debug for IssuedTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuedTokens").field("len", &self.kept.len()).finish()
    }
}

impl IssuedTokens {
    /// Keeps at most `bytes` of tokens.
    pub fn with_capacity(bytes: u64) -> Self {
        let items = usize::try_from(bytes / 1024).unwrap_or(usize::MAX).max(1);
        Self { kept: quick_cache::sync::Cache::with_weighter(items, bytes, ByBytes) }
    }

    /// The token of `request` signed by `ring`'s signing key for `grant` (the caller's
    /// fingerprint of what the token grants: anything whose change must issue a new
    /// token): the one issued before when every one of those is the same and it was
    /// issued at or before `request.now` and is valid past `request.now` plus the
    /// margin; else a new one, kept.
    pub fn issue(
        &self,
        ring: &KeyRing,
        request: &TokenRequest<'_>,
        grant: &[u8],
    ) -> Result<String, TokenError> {
        let key = fingerprint(ring, request, grant);
        let margin = reuse_margin(request.ttl_seconds);
        if let Some(kept) = self.kept.get(&key)
            && kept.iat <= request.now
            && request.now.saturating_add(margin) < kept.exp
        {
            return Ok(kept.token.clone());
        }
        let token = ring.issue(request)?;
        let exp = request.now.saturating_add(request.ttl_seconds);
        self.kept.insert(key, Arc::new(Kept { token: token.clone(), iat: request.now, exp }));
        Ok(token)
    }

    /// Number of tokens kept.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }
}

/// SHA-256 over every member a token is issued from but its time, each length-prefixed.
fn fingerprint(ring: &KeyRing, request: &TokenRequest<'_>, grant: &[u8]) -> [u8; 32] {
    let mut hash = Sha256::new();
    let mut member = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_be_bytes());
        hash.update(bytes);
    };
    member(ring.signing().kid().as_bytes());
    member(request.issuer.as_bytes());
    member(request.audience.as_bytes());
    match request.user_id {
        Some(user) => {
            member(b"u");
            member(user.as_bytes());
        }
        None => member(b"-"),
    }
    member(request.agent_id.as_bytes());
    member(request.session_id.as_bytes());
    member(request.context_json.as_bytes());
    member(&request.ttl_seconds.to_be_bytes());
    member(grant);
    hash.finalize().into()
}
