//! The token as issued and verified: claims, every refusal, rotation, the key ring's text
//! form, and a JWKS URL fetched and cached.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use registry_token::{KeyRing, KeySource, RemoteJwks, TokenError, TokenRequest, Verifier};

const ISS: &str = "http://registry.test";
const AUD: &str = "agent-registry";
const NOW: i64 = 1_800_000_000;
const CTX: &str = r#"{"user":{"userId":"u1"},"account":{"accountId":"a1"}}"#;

fn request(now: i64) -> TokenRequest<'static> {
    TokenRequest {
        issuer: ISS,
        audience: AUD,
        user_id: Some("u1"),
        agent_id: "support",
        session_id: "s-1",
        context_json: CTX,
        now,
        ttl_seconds: 3_600,
    }
}

fn part(token: &str, at: usize) -> serde_json::Value {
    let text = URL_SAFE_NO_PAD.decode(token.split('.').nth(at).unwrap()).unwrap();
    serde_json::from_slice(&text).unwrap()
}

#[test]
fn an_issued_token_carries_the_claims_and_verifies_with_the_published_keys() {
    let ring = KeyRing::generate(NOW).unwrap();
    let token = ring.issue(&request(NOW)).unwrap();
    let header = part(&token, 0);
    assert_eq!(header["alg"], "RS256");
    assert_eq!(header["kid"], ring.signing().kid());
    let claims = part(&token, 1);
    for name in ["iss", "sub", "act", "aud", "sid", "iat", "exp", "jti", "ctx"] {
        assert!(claims.get(name).is_some(), "{name} in {claims}");
    }
    assert_eq!(claims["act"]["sub"], "support");
    assert_eq!(claims["exp"], NOW + 3_600);
    let jwks = serde_json::to_string(&ring.jwks()).unwrap();
    let verifier = Verifier::from_jwks_json(&jwks, ISS, AUD).unwrap();
    let principal = verifier.verify(&token, NOW + 10).unwrap();
    assert_eq!(principal.agent_id(), "support");
    assert_eq!(principal.session_id(), "s-1");
    assert_eq!(principal.sub.as_deref(), Some("u1"));
    assert_eq!(principal.context_json(), CTX);
    // a second token has its own id
    let again = ring.issue(&request(NOW)).unwrap();
    assert_ne!(part(&again, 1)["jti"], claims["jti"]);
}

#[test]
fn every_kind_of_bad_token_is_refused_naming_why() {
    let ring = KeyRing::generate(NOW).unwrap();
    let verifier = ring.verifier(ISS, AUD).unwrap();
    let token = ring.issue(&request(NOW)).unwrap();
    let kid = ring.signing().kid().to_owned();
    let claims = part(&token, 1);

    // signed by a key not in the set, naming its own kid or the set's
    let other = KeyRing::generate(NOW).unwrap();
    let foreign = other.issue(&request(NOW)).unwrap();
    assert_eq!(
        verifier.verify(&foreign, NOW),
        Err(TokenError::UnknownKey(other.signing().kid().into()))
    );
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some(kid.clone());
    let forged = {
        let pem_less = other.to_text();
        let ring: serde_json::Value = serde_json::from_str(&pem_less).unwrap();
        let der = base64::engine::general_purpose::STANDARD
            .decode(ring["keys"][0]["privateKey"].as_str().unwrap())
            .unwrap();
        jsonwebtoken::encode(&header, &claims, &EncodingKey::from_rsa_der(&der)).unwrap()
    };
    assert_eq!(verifier.verify(&forged, NOW), Err(TokenError::BadSignature));

    // alg none
    let none_header = URL_SAFE_NO_PAD.encode(format!(r#"{{"alg":"none","kid":"{kid}"}}"#));
    let payload = token.split('.').nth(1).unwrap();
    let none = format!("{none_header}.{payload}.");
    assert_eq!(verifier.verify(&none, NOW), Err(TokenError::AlgorithmNotAllowed("none".into())));

    // HS256 with the public key as the secret
    let jwk = serde_json::to_value(ring.signing().public_jwk()).unwrap();
    let mut hs = Header::new(Algorithm::HS256);
    hs.kid = Some(kid.clone());
    for secret in [jwk["n"].as_str().unwrap().as_bytes().to_vec(), jwk.to_string().into_bytes()] {
        let confused =
            jsonwebtoken::encode(&hs, &claims, &EncodingKey::from_secret(&secret)).unwrap();
        assert_eq!(
            verifier.verify(&confused, NOW),
            Err(TokenError::AlgorithmNotAllowed("HS256".into()))
        );
    }

    // expired: valid while now < exp
    assert!(verifier.verify(&token, NOW + 3_599).is_ok());
    assert_eq!(verifier.verify(&token, NOW + 3_600), Err(TokenError::Expired(NOW + 3_600)));

    // wrong audience, wrong issuer
    let elsewhere = ring.verifier(ISS, "another-audience").unwrap();
    assert_eq!(
        elsewhere.verify(&token, NOW),
        Err(TokenError::WrongAudience("another-audience".into()))
    );
    let other_issuer = ring.verifier("http://other", AUD).unwrap();
    assert_eq!(
        other_issuer.verify(&token, NOW),
        Err(TokenError::WrongIssuer("http://other".into()))
    );

    // truncated
    for cut in [token.len() - 1, token.len() - 40, token.rfind('.').unwrap(), 10] {
        let refused = verifier.verify(&token[..cut], NOW).unwrap_err();
        assert!(
            matches!(refused, TokenError::BadSignature | TokenError::Malformed(_)),
            "{cut}: {refused}"
        );
    }
    // re-encoded: the payload with padding, as standard base64, with other whitespace
    let (head, rest) = token.split_once('.').unwrap();
    let (body, signature) = rest.split_once('.').unwrap();
    let json = URL_SAFE_NO_PAD.decode(body).unwrap();
    let padded = base64::engine::general_purpose::URL_SAFE.encode(&json);
    let spaced = URL_SAFE_NO_PAD.encode(
        serde_json::to_string_pretty(&serde_json::from_slice::<serde_json::Value>(&json).unwrap())
            .unwrap(),
    );
    for body in [padded, spaced] {
        let re = format!("{head}.{body}.{signature}");
        let refused = verifier.verify(&re, NOW).unwrap_err();
        assert!(
            matches!(refused, TokenError::BadSignature | TokenError::Malformed(_)),
            "{refused}"
        );
    }
    // no kid
    let mut no_kid = Header::new(Algorithm::RS256);
    no_kid.kid = None;
    let t = format!(
        "{}.{payload}.{signature}",
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&no_kid).unwrap())
    );
    assert_eq!(verifier.verify(&t, NOW), Err(TokenError::MissingKeyId));
    // too large
    assert!(matches!(verifier.verify(&"a".repeat(9_000), NOW), Err(TokenError::TooLarge(9_000))));
    assert_eq!(
        verifier.verify("garbage", NOW),
        Err(TokenError::Malformed("not three dot-separated parts"))
    );
}

#[test]
fn rotation_keeps_old_tokens_verifying_until_the_old_key_is_removed() {
    let ring = KeyRing::generate(NOW).unwrap();
    let old_kid = ring.signing().kid().to_owned();
    let old = ring.issue(&request(NOW)).unwrap();
    let rotated = ring.rotate(NOW + 5, 3_600).unwrap();
    assert_ne!(rotated.signing().kid(), old_kid);
    assert_eq!(rotated.keys().len(), 2);
    assert_eq!(rotated.keys()[1].retired_at, Some(NOW + 5));
    let new = rotated.issue(&request(NOW + 5)).unwrap();
    assert_eq!(part(&new, 0)["kid"], rotated.signing().kid());
    let verifier = rotated.verifier(ISS, AUD).unwrap();
    assert!(verifier.verify(&old, NOW + 6).is_ok());
    assert!(verifier.verify(&new, NOW + 6).is_ok());
    // the signing key cannot be removed; the retired one can
    let signing = rotated.signing().kid().to_owned();
    assert_eq!(rotated.remove(&signing).unwrap_err(), TokenError::SigningKeyKept(signing.clone()));
    assert_eq!(rotated.remove("nope").unwrap_err(), TokenError::NoSuchKey("nope".into()));
    let removed = rotated.remove(&old_kid).unwrap();
    let verifier = removed.verifier(ISS, AUD).unwrap();
    assert_eq!(verifier.verify(&old, NOW + 6), Err(TokenError::UnknownKey(old_kid.clone())));
    assert!(verifier.verify(&new, NOW + 6).is_ok());
    // a key retired longer ago than a token lives is dropped at the next rotation
    let later = rotated.rotate(NOW + 5 + 3_600, 3_600).unwrap();
    assert!(later.keys().iter().all(|k| k.key.kid() != old_kid));
    assert_eq!(later.keys().len(), 2);
}

#[test]
fn the_ring_text_form_reads_back_and_bad_text_is_refused() {
    let ring = KeyRing::generate(NOW).unwrap().rotate(NOW + 1, 3_600).unwrap();
    let back = KeyRing::parse(&ring.to_text()).unwrap();
    assert_eq!(back.to_text(), ring.to_text());
    let token = back.issue(&request(NOW)).unwrap();
    assert!(ring.verifier(ISS, AUD).unwrap().verify(&token, NOW).is_ok());
    for bad in
        ["", "{}", r#"{"keys":[]}"#, r#"{"keys":[{"kid":"k","createdAt":1,"privateKey":"!!"}]}"#]
    {
        assert!(matches!(KeyRing::parse(bad), Err(TokenError::InvalidKey(_))), "{bad}");
    }
    let tampered = ring.to_text().replacen(ring.signing().kid(), "another", 1);
    assert!(KeyRing::parse(&tampered).is_err());
    assert!(matches!(Verifier::from_jwks_json("{}", ISS, AUD), Err(TokenError::KeySet(_))));
    assert!(matches!(
        Verifier::from_jwks_json(r#"{"keys":[]}"#, ISS, AUD),
        Err(TokenError::KeySet(_))
    ));
}

/// A JWKS served over HTTP, counting its fetches.
async fn serve_jwks(jwks: Arc<std::sync::Mutex<String>>, hits: Arc<AtomicUsize>) -> String {
    let app = axum::Router::new().route(
        "/.well-known/jwks.json",
        axum::routing::get(move || {
            let jwks = Arc::clone(&jwks);
            let hits = Arc::clone(&hits);
            async move {
                hits.fetch_add(1, Ordering::SeqCst);
                jwks.lock().unwrap().clone()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/.well-known/jwks.json")
}

#[tokio::test]
async fn a_jwks_url_is_fetched_once_and_again_for_an_unknown_kid_at_most_once_a_minute() {
    let ring = KeyRing::generate(NOW).unwrap();
    let served = Arc::new(std::sync::Mutex::new(serde_json::to_string(&ring.jwks()).unwrap()));
    let hits = Arc::new(AtomicUsize::new(0));
    let url = serve_jwks(Arc::clone(&served), Arc::clone(&hits)).await;
    let source = KeySource::Url(RemoteJwks::new(url, ISS, AUD));
    let token = ring.issue(&request(NOW)).unwrap();
    for _ in 0..3 {
        assert!(source.verify(&token, NOW).await.is_ok());
    }
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    // a rotation the cached set does not know yet: fetched again once, then not within a minute
    let rotated = ring.rotate(NOW, 3_600).unwrap();
    let new = rotated.issue(&request(NOW)).unwrap();
    *served.lock().unwrap() = serde_json::to_string(&rotated.jwks()).unwrap();
    assert!(source.verify(&new, NOW).await.is_ok());
    assert_eq!(hits.load(Ordering::SeqCst), 2);
    let stranger = KeyRing::generate(NOW).unwrap().issue(&request(NOW)).unwrap();
    for _ in 0..3 {
        assert!(matches!(source.verify(&stranger, NOW).await, Err(TokenError::UnknownKey(_))));
    }
    assert_eq!(hits.load(Ordering::SeqCst), 2);
    // a URL that does not answer fails closed
    let down = KeySource::Url(RemoteJwks::new("http://127.0.0.1:1/jwks.json", ISS, AUD));
    assert!(matches!(down.verify(&token, NOW).await, Err(TokenError::KeySetUnavailable(_))));
}

/// A token signed by `ring`'s signing key with `header` and `claims` as given.
fn signed(ring: &KeyRing, header: &serde_json::Value, claims: &serde_json::Value) -> String {
    let text: serde_json::Value = serde_json::from_str(&ring.to_text()).unwrap();
    let der = base64::engine::general_purpose::STANDARD
        .decode(text["keys"][0]["privateKey"].as_str().unwrap())
        .unwrap();
    let head = URL_SAFE_NO_PAD.encode(header.to_string());
    let body = URL_SAFE_NO_PAD.encode(claims.to_string());
    let input = format!("{head}.{body}");
    let signature = jsonwebtoken::crypto::sign(
        input.as_bytes(),
        &EncodingKey::from_rsa_der(&der),
        Algorithm::RS256,
    )
    .unwrap();
    format!("{input}.{signature}")
}

#[test]
fn a_crit_header_a_future_nbf_and_a_future_iat_are_refused() {
    let ring = KeyRing::generate(NOW).unwrap();
    let verifier = ring.verifier(ISS, AUD).unwrap();
    let token = ring.issue(&request(NOW)).unwrap();
    let claims = part(&token, 1);
    let header = serde_json::json!({"alg": "RS256", "kid": ring.signing().kid()});
    // the same header and claims signed here verify: what follows changes one thing
    assert!(verifier.verify(&signed(&ring, &header, &claims), NOW).is_ok());

    // RFC 7515 4.1.11: a `crit` the verifier does not understand (any, here) refuses
    for crit in [serde_json::json!(["exp"]), serde_json::json!(["b64"]), serde_json::json!([])] {
        let mut h = header.clone();
        h["crit"] = crit.clone();
        assert_eq!(
            verifier.verify(&signed(&ring, &h, &claims), NOW),
            Err(TokenError::CriticalHeader),
            "{crit}"
        );
    }

    // `nbf`, when present: refused while it lies more than the skew ahead
    let skew = registry_token::CLOCK_SKEW_SECONDS;
    let mut c = claims.clone();
    c["nbf"] = serde_json::json!(NOW + 600);
    let later = signed(&ring, &header, &c);
    assert_eq!(verifier.verify(&later, NOW), Err(TokenError::NotYetValid(NOW + 600)));
    assert_eq!(
        verifier.verify(&later, NOW + 600 - skew - 1),
        Err(TokenError::NotYetValid(NOW + 600))
    );
    assert!(verifier.verify(&later, NOW + 600 - skew).is_ok());
    assert_eq!(verifier.verify(&later, NOW + 600).unwrap().nbf, Some(NOW + 600));

    // `iat` ahead of the clock: issued in the future
    let mut c = claims.clone();
    c["iat"] = serde_json::json!(NOW + 900);
    let future = signed(&ring, &header, &c);
    assert_eq!(verifier.verify(&future, NOW), Err(TokenError::IssuedInFuture(NOW + 900)));
    assert!(verifier.verify(&future, NOW + 900 - skew).is_ok());
    // the issued token (iat = NOW) verifies at NOW and just before it, within the skew
    assert!(verifier.verify(&token, NOW - skew).is_ok());
    assert_eq!(verifier.verify(&token, NOW - skew - 1), Err(TokenError::IssuedInFuture(NOW)));
}
