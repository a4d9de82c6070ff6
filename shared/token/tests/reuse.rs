//! One signature per session (decision 112): the same request, grant and signing key
//! answer the token issued before, byte for byte, until the margin before its `exp`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use registry_token::{
    IssuedTokens, KeyRing, SigningAlgorithm, SigningKey, TokenRequest, reuse_margin,
};

const NOW: i64 = 1_800_000_000;
const TTL: i64 = 3_600;

fn request(now: i64, context_json: &str) -> TokenRequest<'_> {
    TokenRequest {
        issuer: "http://registry.test",
        audience: "agent-registry",
        user_id: Some("u1"),
        agent_id: "support",
        session_id: "s-1",
        context_json,
        now,
        ttl_seconds: TTL,
    }
}

const CTX: &str = r#"{"user":{"userId":"u1"}}"#;

#[test]
fn the_same_session_gets_the_same_token_and_any_change_a_new_one() {
    let ring = KeyRing::generate(NOW).unwrap();
    let issued = IssuedTokens::default();
    let first = issued.issue(&ring, &request(NOW, CTX), b"grant-1").unwrap();
    let again = issued.issue(&ring, &request(NOW + 60, CTX), b"grant-1").unwrap();
    assert_eq!(first.as_bytes(), again.as_bytes(), "reused byte for byte");
    // a changed grant (a tool added to the agent), context, session or user: a new token
    let granted_more = issued.issue(&ring, &request(NOW + 60, CTX), b"grant-2").unwrap();
    assert_ne!(granted_more, first);
    let other_context = r#"{"user":{"userId":"u1"},"account":{"accountId":"a1"}}"#;
    let changed = issued.issue(&ring, &request(NOW + 60, other_context), b"grant-1").unwrap();
    assert_ne!(changed, first);
    let mut other_session = request(NOW + 60, CTX);
    other_session.session_id = "s-2";
    assert_ne!(issued.issue(&ring, &other_session, b"grant-1").unwrap(), first);
    let mut other_user = request(NOW + 60, CTX);
    other_user.user_id = None;
    assert_ne!(issued.issue(&ring, &other_user, b"grant-1").unwrap(), first);
    // the first is still kept for its own request
    assert_eq!(issued.issue(&ring, &request(NOW + 61, CTX), b"grant-1").unwrap(), first);
    // a rotated key signs a new one, with its kid
    let rotated = ring
        .rotate_to(SigningKey::generate_for(SigningAlgorithm::ES256).unwrap(), NOW + 62, TTL)
        .unwrap();
    let fresh = issued.issue(&rotated, &request(NOW + 62, CTX), b"grant-1").unwrap();
    assert_ne!(fresh, first);
    assert!(
        rotated
            .verifier("http://registry.test", "agent-registry")
            .unwrap()
            .verify(&fresh, NOW + 62)
            .is_ok()
    );
    assert_eq!(issued.issue(&rotated, &request(NOW + 63, CTX), b"grant-1").unwrap(), fresh);
}

#[test]
fn a_kept_token_is_answered_until_the_margin_before_exp() {
    let ring = KeyRing::generate_for(SigningAlgorithm::EdDSA, NOW).unwrap();
    let issued = IssuedTokens::default();
    let margin = reuse_margin(TTL);
    assert_eq!(margin, 300);
    assert_eq!(reuse_margin(60), 30, "half a short lifetime");
    let first = issued.issue(&ring, &request(NOW, CTX), b"g").unwrap();
    let last_reuse = NOW + TTL - margin - 1;
    assert_eq!(issued.issue(&ring, &request(last_reuse, CTX), b"g").unwrap(), first);
    let renewed = issued.issue(&ring, &request(last_reuse + 1, CTX), b"g").unwrap();
    assert_ne!(renewed, first, "within the margin before exp: a new token");
    assert_eq!(issued.issue(&ring, &request(last_reuse + 2, CTX), b"g").unwrap(), renewed);
    // a clock that went back before the kept token's `iat` issues a new one
    assert_ne!(issued.issue(&ring, &request(NOW, CTX), b"g").unwrap(), renewed);
}

#[test]
fn the_cache_is_bounded_by_bytes() {
    let ring = KeyRing::generate_for(SigningAlgorithm::ES256, NOW).unwrap();
    let issued = IssuedTokens::with_capacity(16 * 1024);
    for n in 0..200 {
        let session = format!("session-{n}");
        let mut r = request(NOW, CTX);
        r.session_id = &session;
        issued.issue(&ring, &r, b"g").unwrap();
    }
    // tokens here are about 450 bytes: 16 KiB keeps a few dozen, never all 200
    assert!(issued.len() < 60, "{}", issued.len());
}
