//! Principal tokens as the registry issues them, for the end-to-end tests: one key ring
//! per run (and one the guards do not know), its JWKS as a guard's environment holds
//! it, and the ring in a Secrets Manager secret as the admin API reads it.

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use registry_config::names;
use registry_token::{DEFAULT_AUDIENCE, KeyRing, TokenRequest};
use serde_json::Value;

/// The `iss` the tests' registry issues as and their guards expect (the admin API's
/// default).
pub const ISSUER: &str = DEFAULT_AUDIENCE;

/// The registry's keys.
pub fn ring() -> &'static KeyRing {
    static RING: OnceLock<KeyRing> = OnceLock::new();
    RING.get_or_init(|| KeyRing::generate(now_s()).unwrap_or_else(|e| panic!("{e}")))
}

/// Keys the guards do not know: a token they sign is forged.
pub fn other_ring() -> &'static KeyRing {
    static RING: OnceLock<KeyRing> = OnceLock::new();
    RING.get_or_init(|| KeyRing::generate(now_s()).unwrap_or_else(|e| panic!("{e}")))
}

/// [`ring`]'s public keys, as `GET /.well-known/jwks.json` answers.
pub fn jwks() -> &'static str {
    static JWKS: OnceLock<String> = OnceLock::new();
    JWKS.get_or_init(|| serde_json::to_string(&ring().jwks()).unwrap_or_default())
}

/// A guard's environment verifying [`ring`]'s tokens.
pub fn guard_env() -> [(&'static str, &'static str); 2] {
    [(names::TOKEN_ISSUER, ISSUER), (names::JWKS, jwks())]
}

/// Now, in Unix seconds.
pub fn now_s() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or_default()
}

/// A token of `keys` for `agent` and `context` in `session`, as resolution issues it,
/// valid until `expires_at` (Unix seconds).
pub fn issue(
    keys: &KeyRing,
    agent: &str,
    context: &Value,
    session: &str,
    expires_at: i64,
) -> String {
    keys.issue(&TokenRequest {
        issuer: ISSUER,
        audience: DEFAULT_AUDIENCE,
        user_id: context.pointer("/user/userId").and_then(Value::as_str),
        agent_id: agent,
        session_id: session,
        context_json: &context.to_string(),
        now: expires_at - 3_600,
        ttl_seconds: 3_600,
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A Secrets Manager secret on the local AWS-API server at `endpoint` holding [`ring`]
/// (the template's `SigningKeysSecret`); its ARN.
pub async fn signing_keys_secret(endpoint: &str, name: &str) -> String {
    let body = serde_json::json!({"Name": name, "SecretString": ring().to_text()});
    let created =
        crate::aws_json(endpoint, "secretsmanager.CreateSecret", "secretsmanager", body).await;
    created["ARN"].as_str().unwrap_or_else(|| panic!("no secret: {created}")).to_owned()
}
