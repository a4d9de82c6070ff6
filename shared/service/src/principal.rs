//! The principal token (SPEC section 16, decision 83): the one place the registry issues
//! it (at resolution; test-invoke) and verifies it (the token broker), with the keys of
//! [`crate::principal_keys::PrincipalKeys`].

use registry_access::{DecisionPoint, DecisionRecord};
use registry_token::{Principal, TokenError, TokenRequest};

use crate::Resolver;

/// What a principal token is issued for.
#[derive(Debug, Clone, Copy)]
pub struct PrincipalGrant<'a> {
    /// The agent resolved (`act.sub`).
    pub agent_id: &'a str,
    /// The user of the context (`sub`), when it names one.
    pub user_id: Option<&'a str>,
    /// The session (`sid`): a Bedrock session id.
    pub session_id: &'a str,
    /// The request context's JSON text, checked already (`ctx`).
    pub context_json: &'a [u8],
}

/// A registry configured without keys neither issues nor verifies.
const NO_KEYS: &str = "this registry issues no principal tokens";

impl Resolver {
    /// Issues the principal token of `grant`, signed now by the signing key, valid for
    /// the configured lifetime.
    pub fn issue_principal(&self, grant: &PrincipalGrant<'_>) -> Result<String, TokenError> {
        self.sign_principal(grant, None)
    }

    /// The principal token of a resolution that granted `resolved` (its fingerprint):
    /// the token issued before for the same `grant` and `resolved` with the same signing
    /// key, while it is valid for more than the reuse margin; else a new one (decision
    /// 112).
    pub(crate) fn principal_for_session(
        &self,
        grant: &PrincipalGrant<'_>,
        resolved: &[u8],
    ) -> Result<String, TokenError> {
        self.sign_principal(grant, Some(resolved))
    }

    fn sign_principal(
        &self,
        grant: &PrincipalGrant<'_>,
        resolved: Option<&[u8]>,
    ) -> Result<String, TokenError> {
        let keys = self.principal_keys.as_deref().ok_or(TokenError::KeySet(NO_KEYS.into()))?;
        let settings = keys.settings();
        let context_json = std::str::from_utf8(grant.context_json)
            .map_err(|_| TokenError::InvalidClaims("the context is not UTF-8".into()))?;
        let request = TokenRequest {
            issuer: &settings.issuer,
            audience: &settings.audience,
            user_id: grant.user_id,
            agent_id: grant.agent_id,
            session_id: grant.session_id,
            context_json,
            now: chrono::Utc::now().timestamp(),
            ttl_seconds: settings.ttl_seconds,
        };
        let ring = keys.ring();
        match resolved {
            Some(resolved) => keys.issued().issue(&ring, &request, resolved),
            None => ring.issue(&request),
        }
    }

    /// Verifies a principal token (the `registryPrincipal` session attribute of a
    /// resolution) with this registry's published keys, issuer and audience, now.
    pub fn verify_principal(&self, token: &str) -> Result<Principal, TokenError> {
        let keys = self.principal_keys.as_deref().ok_or(TokenError::KeySet(NO_KEYS.into()))?;
        keys.verifier().verify(token, chrono::Utc::now().timestamp())
    }

    /// The decision line of a token refused at `point` (`INVALID_SIGNED_CONTEXT` or
    /// `EXPIRED_SIGNED_CONTEXT`, the message naming why).
    pub fn log_refused_principal(&self, point: DecisionPoint, e: &TokenError) {
        if self.decisions.is_on() {
            let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            let id = uuid::Uuid::now_v7().to_string();
            let record = DecisionRecord::refusal(point, id, now, e.refusal_code(), e.to_string());
            self.decisions.record(record);
        }
    }

    /// Re-reads the keys when they are old (another instance may have rotated them).
    pub async fn refresh_keys(&self) {
        if let Some(keys) = &self.principal_keys {
            keys.refresh().await;
        }
    }

    /// Re-reads the keys when they are old, or when `token` names a key they lack
    /// (another instance's rotation: decision 100), before `token` is verified.
    pub async fn refresh_keys_for(&self, token: &str) {
        if let Some(keys) = &self.principal_keys {
            keys.refresh_for(token).await;
        }
    }
}
