//! The principal context signed by the registry at resolution and verified where a
//! tool runs (SPEC section 16): HMAC-SHA256 over the agent id, the request context
//! and an expiry, with a key id so keys can rotate.
//!
//! Wire form (one session attribute): `v1.<keyId>.<expiresAt>.<payload>.<mac>`, where
//! `expiresAt` is Unix seconds, `payload` the base64url JSON `{"agentId", "context"}`
//! and `mac` the base64url HMAC-SHA256 of everything before it.

use crate::context::RequestContext;
use crate::context::prepared::PreparedContext;
use crate::diagnostics::ContextJsonError;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::Sha256;
use std::borrow::Cow;

/// The session attribute that carries the signed context.
pub const SESSION_ATTRIBUTE: &str = "registryPrincipal";
/// How long a signed context is valid by default, in seconds (one hour).
pub const DEFAULT_TTL_SECONDS: i64 = 3_600;
/// Longest signed context, in bytes: the attribute stays well within what Bedrock
/// passes to every action-group invocation.
pub const MAX_SIGNED_BYTES: usize = 8 * 1024;

/// A signing key: its id (named in every context it signs) and its secret.
#[derive(Clone)]
pub struct SigningKey {
    id: String,
    secret: Vec<u8>,
    /// HMAC keyed with `secret`, cloned for each MAC (the key schedule done once).
    keyed: Hmac<Sha256>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey").field("id", &self.id).finish_non_exhaustive()
    }
}

/// Why a signed context is not trusted, or cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignedContextError {
    /// Not of the wire form.
    #[error("the signed context is malformed")]
    Malformed,
    /// Signed with a key this verifier does not have.
    #[error("the signed context names an unknown key `{0}`")]
    UnknownKey(String),
    /// The MAC does not match: forged or altered.
    #[error("the signed context's signature does not match")]
    BadSignature,
    /// Past its expiry.
    #[error("the signed context expired at {0}")]
    Expired(i64),
    /// The key is unusable (empty secret, bad id).
    #[error("invalid signing key: {0}")]
    InvalidKey(&'static str),
    /// The context breaks the request-context limits (the number of problems).
    #[error("the signed context is over the context limits ({0} problems)")]
    OverLimits(usize),
    /// The context is too large to sign.
    #[error("the signed context would be {0} bytes, at most {MAX_SIGNED_BYTES}")]
    TooLarge(usize),
}

/// What a signed context says once verified.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Principal {
    /// The agent resolved.
    pub agent_id: String,
    /// The request context the resolution decided on.
    pub context: RequestContext,
}

/// A verified signed context, kept as its payload (the JSON `{"agentId", "context"}`)
/// so that it is read in place, without building a [`Principal`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedPayload {
    json: Vec<u8>,
    expires_at: i64,
}

/// The payload's two fields, borrowed from its text.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PayloadFields<'a> {
    #[serde(borrow)]
    agent_id: Cow<'a, str>,
    #[serde(borrow)]
    context: &'a RawValue,
}

impl VerifiedPayload {
    /// When the signed context expires (Unix seconds).
    pub fn expires_at(&self) -> i64 {
        self.expires_at
    }

    /// The agent id and the request context prepared for evaluation, read from the
    /// payload's text (the same context as [`VerifiedPayload::principal`] gives).
    pub fn read(&self) -> Result<(Cow<'_, str>, PreparedContext<'_>), SignedContextError> {
        if let Some((agent_id, context)) = signed_layout(&self.json)
            && let Ok(context) = PreparedContext::from_json(context)
        {
            return Ok((Cow::Borrowed(agent_id), context));
        }
        let fields: PayloadFields<'_> =
            serde_json::from_slice(&self.json).map_err(|_| SignedContextError::Malformed)?;
        match PreparedContext::from_json(fields.context.get().as_bytes()) {
            Ok(context) => Ok((fields.agent_id, context)),
            Err(ContextJsonError::Json(_)) => Err(SignedContextError::Malformed),
            Err(ContextJsonError::Limits(errors)) => {
                Err(SignedContextError::OverLimits(errors.len()))
            }
        }
    }

    /// What the payload says, parsed.
    pub fn principal(&self) -> Result<Principal, SignedContextError> {
        serde_json::from_slice(&self.json).map_err(|_| SignedContextError::Malformed)
    }

    /// The session the context was issued for (`sessionId`, set by a test-invoke), if any.
    pub fn session_id(&self) -> Result<Option<String>, SignedContextError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Session {
            #[serde(default)]
            session_id: Option<String>,
        }
        let session: Session =
            serde_json::from_slice(&self.json).map_err(|_| SignedContextError::Malformed)?;
        Ok(session.session_id)
    }
}

/// The agent id and the context's text of a payload laid out as the signer writes it
/// (`{"agentId":"<id without escapes>","context":<context>}`), sliced without a parse;
/// `None` for any other layout. What the context's reader then takes, the payload's
/// parse gives too.
fn signed_layout(json: &[u8]) -> Option<(&str, &[u8])> {
    let rest = json.strip_prefix(br#"{"agentId":""#)?;
    let end = rest.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    let agent_id = std::str::from_utf8(&rest[..end]).ok()?;
    let context = rest[end..].strip_prefix(br#"","context":"#)?.strip_suffix(b"}")?;
    Some((agent_id, context))
}

fn is_key_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl SigningKey {
    /// A key with `id` (1 to 64 of `A-Za-z0-9_-`) and a secret of at least 32 bytes.
    pub fn new(id: impl Into<String>, secret: Vec<u8>) -> Result<Self, SignedContextError> {
        let id = id.into();
        if !is_key_id(&id) {
            return Err(SignedContextError::InvalidKey("the id must be 1 to 64 of A-Za-z0-9_-"));
        }
        if secret.len() < 32 {
            return Err(SignedContextError::InvalidKey("the secret must be at least 32 bytes"));
        }
        let keyed = Hmac::<Sha256>::new_from_slice(&secret)
            .map_err(|_| SignedContextError::InvalidKey("unusable secret"))?;
        Ok(Self { id, secret, keyed })
    }

    /// The key id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The MAC of `signed`.
    fn mac(&self, signed: &[u8]) -> Hmac<Sha256> {
        let mut mac = self.keyed.clone();
        mac.update(signed);
        mac
    }

    /// Signs `principal`, valid until `expires_at` (Unix seconds).
    pub fn sign(
        &self,
        principal: &Principal,
        expires_at: i64,
    ) -> Result<String, SignedContextError> {
        let payload = serde_json::to_vec(principal).map_err(|_| SignedContextError::Malformed)?;
        self.sign_payload(&payload, expires_at)
    }

    /// Signs the principal of `agent_id` with the JSON text of a request context that
    /// has been checked already (as [`Principal`] would serialize, without parsing the
    /// context again).
    pub fn sign_context_json(
        &self,
        agent_id: &str,
        context_json: &[u8],
        expires_at: i64,
    ) -> Result<String, SignedContextError> {
        self.sign_session_context_json(agent_id, context_json, None, expires_at)
    }

    /// [`SigningKey::sign_context_json`] for one session: the payload also names
    /// `sessionId` (read back by [`VerifiedPayload::session_id`]).
    pub fn sign_session_context_json(
        &self,
        agent_id: &str,
        context_json: &[u8],
        session_id: Option<&str>,
        expires_at: i64,
    ) -> Result<String, SignedContextError> {
        let agent = serde_json::to_string(agent_id).map_err(|_| SignedContextError::Malformed)?;
        let mut payload = Vec::with_capacity(context_json.len() + agent.len() + 24);
        payload.extend_from_slice(b"{\"agentId\":");
        payload.extend_from_slice(agent.as_bytes());
        payload.extend_from_slice(b",\"context\":");
        payload.extend_from_slice(context_json);
        if let Some(session_id) = session_id {
            let session =
                serde_json::to_string(session_id).map_err(|_| SignedContextError::Malformed)?;
            payload.extend_from_slice(b",\"sessionId\":");
            payload.extend_from_slice(session.as_bytes());
        }
        payload.push(b'}');
        self.sign_payload(&payload, expires_at)
    }

    fn sign_payload(&self, payload: &[u8], expires_at: i64) -> Result<String, SignedContextError> {
        let mut out = format!("v1.{}.{expires_at}.", self.id);
        URL_SAFE_NO_PAD.encode_string(payload, &mut out);
        let tag = self.mac(out.as_bytes()).finalize().into_bytes();
        out.push('.');
        URL_SAFE_NO_PAD.encode_string(tag, &mut out);
        if out.len() > MAX_SIGNED_BYTES {
            return Err(SignedContextError::TooLarge(out.len()));
        }
        Ok(out)
    }
}

/// The keys a verifier trusts: the current one and those still valid after a rotation.
#[derive(Debug, Clone, Default)]
pub struct KeyRing {
    keys: Vec<SigningKey>,
}

impl KeyRing {
    /// A ring of `keys` (the first signs; all verify).
    pub fn new(keys: Vec<SigningKey>) -> Self {
        Self { keys }
    }

    /// Parses the text form of a ring: `keyId:base64secret` entries separated by commas
    /// or newlines, the signing key first (as kept in `serve`'s data directory, in the
    /// `REGISTRY_CONTEXT_KEYS` environment variable or in a Secrets Manager secret).
    pub fn parse(text: &str) -> Result<Self, SignedContextError> {
        let keys = text
            .split([',', '\n'])
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(|entry| {
                let (id, secret) = entry
                    .split_once(':')
                    .ok_or(SignedContextError::InvalidKey("an entry is keyId:base64secret"))?;
                let secret = base64::engine::general_purpose::STANDARD
                    .decode(secret.trim())
                    .map_err(|_| SignedContextError::InvalidKey("the secret is not base64"))?;
                SigningKey::new(id.trim(), secret)
            })
            .collect::<Result<Vec<_>, _>>()?;
        if keys.is_empty() {
            return Err(SignedContextError::InvalidKey("no keys"));
        }
        Ok(Self { keys })
    }

    /// The text form [`KeyRing::parse`] reads.
    pub fn to_text(&self) -> String {
        self.keys
            .iter()
            .map(|k| {
                format!("{}:{}", k.id, base64::engine::general_purpose::STANDARD.encode(&k.secret))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The key that signs, if any.
    pub fn signing(&self) -> Option<&SigningKey> {
        self.keys.first()
    }

    /// Verifies `token` at `now` (Unix seconds): signature first, then expiry; only
    /// then is the payload read.
    pub fn verify(&self, token: &str, now: i64) -> Result<Principal, SignedContextError> {
        self.verify_payload(token, now)?.principal()
    }

    /// Verifies `token` as [`KeyRing::verify`] does and gives its payload unread.
    pub fn verify_payload(
        &self,
        token: &str,
        now: i64,
    ) -> Result<VerifiedPayload, SignedContextError> {
        let (signed, mac) = token.rsplit_once('.').ok_or(SignedContextError::Malformed)?;
        let mut parts = signed.splitn(4, '.');
        let (Some("v1"), Some(key_id), Some(expires), Some(payload)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(SignedContextError::Malformed);
        };
        let key = self
            .keys
            .iter()
            .find(|k| k.id == key_id)
            .ok_or_else(|| SignedContextError::UnknownKey(key_id.chars().take(64).collect()))?;
        let tag = URL_SAFE_NO_PAD.decode(mac).map_err(|_| SignedContextError::Malformed)?;
        key.mac(signed.as_bytes())
            .verify_slice(&tag)
            .map_err(|_| SignedContextError::BadSignature)?;
        let expires_at: i64 = expires.parse().map_err(|_| SignedContextError::Malformed)?;
        if now >= expires_at {
            return Err(SignedContextError::Expired(expires_at));
        }
        let json = URL_SAFE_NO_PAD.decode(payload).map_err(|_| SignedContextError::Malformed)?;
        Ok(VerifiedPayload { json, expires_at })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `read` gives, as comparable text: the agent id and the context's fields.
    fn read(json: &str) -> Result<String, SignedContextError> {
        let payload = VerifiedPayload { json: json.as_bytes().to_vec(), expires_at: 0 };
        let (agent_id, context) = payload.read()?;
        Ok(format!("{agent_id} {:?} {:?}", context.user_id(), context.account_id()))
    }

    /// The same from the parsed principal, the plain path.
    fn parsed(json: &str) -> Result<String, SignedContextError> {
        let payload = VerifiedPayload { json: json.as_bytes().to_vec(), expires_at: 0 };
        let principal = payload.principal()?;
        let context = PreparedContext::new(&principal.context)
            .map_err(|e| SignedContextError::OverLimits(e.len()))?;
        Ok(format!("{} {:?} {:?}", principal.agent_id, context.user_id(), context.account_id()))
    }

    #[test]
    fn reading_a_payload_in_place_gives_what_parsing_it_gives() {
        let ctx = r#"{"user":{"userId":"u1"},"account":{"accountId":"a\u00e9"}}"#;
        for json in [
            format!(r#"{{"agentId":"support","context":{ctx}}}"#),
            format!(r#"{{"agentId":"sup\"port","context":{ctx}}}"#),
            format!(r#"{{"agentId":"sup\u0041port","context":{ctx}}}"#),
            format!(r#"{{ "agentId": "support", "context": {ctx} }}"#),
            format!(r#"{{"context":{ctx},"agentId":"support"}}"#),
            format!(r#"{{"agentId":"support","context":{ctx},"later":1}}"#),
            r#"{"agentId":"support","context":{}}"#.to_owned(),
            r#"{"agentId":"support","context":{"user":{"userId":"u1"}}"#.to_owned(),
            r#"{"agentId":"support","context":{"user":7}}"#.to_owned(),
            r#"{"agentId":"support"}"#.to_owned(),
        ] {
            assert_eq!(read(&json), parsed(&json), "{json}");
        }
        assert!(read(r#"{"agentId":"a","context":{"user":7}}"#).is_err());
    }
}
