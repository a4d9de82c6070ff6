//! ES256 and EdDSA keys beside RS256 (decision 113): each key carries its algorithm, the
//! key set publishes it, and a verifier checks a token with the algorithm of the key its
//! `kid` names, never the one its header asks for.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{DecodingKey, EncodingKey, Header, Validation};
use registry_token::{
    ALGORITHMS, KeyRing, Principal, SigningAlgorithm, SigningKey, TokenError, TokenRequest,
    Verifier,
};
use serde_json::Value;

const ISS: &str = "http://registry.test";
const AUD: &str = "agent-registry";
const NOW: i64 = 1_800_000_000;

fn request(now: i64) -> TokenRequest<'static> {
    TokenRequest {
        issuer: ISS,
        audience: AUD,
        user_id: Some("u1"),
        agent_id: "support",
        session_id: "s-1",
        context_json: r#"{"user":{"userId":"u1"}}"#,
        now,
        ttl_seconds: 3_600,
    }
}

fn part(token: &str, at: usize) -> Value {
    let text = URL_SAFE_NO_PAD.decode(token.split('.').nth(at).unwrap()).unwrap();
    serde_json::from_slice(&text).unwrap()
}

/// The private key's DER, as the ring's text form keeps it.
fn der_of(ring: &KeyRing) -> Vec<u8> {
    let text: Value = serde_json::from_str(&ring.to_text()).unwrap();
    base64::engine::general_purpose::STANDARD
        .decode(text["keys"][0]["privateKey"].as_str().unwrap())
        .unwrap()
}

/// `claims` signed by `ring`'s signing key with `alg` named in the header and `kid`.
fn signed_as(ring: &KeyRing, alg: jsonwebtoken::Algorithm, kid: &str, claims: &Value) -> String {
    let der = der_of(ring);
    let key = match ring.signing().algorithm() {
        SigningAlgorithm::RS256 => EncodingKey::from_rsa_der(&der),
        SigningAlgorithm::ES256 => EncodingKey::from_ec_der(&der),
        SigningAlgorithm::EdDSA => EncodingKey::from_ed_der(&der),
    };
    let mut header = Header::new(alg);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, &key).unwrap()
}

#[test]
fn every_algorithm_issues_tokens_its_published_key_verifies() {
    for algorithm in ALGORITHMS {
        let ring = KeyRing::generate_for(algorithm, NOW).unwrap();
        assert_eq!(ring.signing().algorithm(), algorithm);
        let token = ring.issue(&request(NOW)).unwrap();
        let header = part(&token, 0);
        assert_eq!(header["alg"], algorithm.as_str());
        assert_eq!(header["kid"], ring.signing().kid());
        let jwks = serde_json::to_value(ring.jwks()).unwrap();
        let jwk = &jwks["keys"][0];
        assert_eq!(jwk["alg"], algorithm.as_str(), "{jwk}");
        assert_eq!(jwk["use"], "sig");
        assert!(jwk.get("d").is_none(), "no private member: {jwk}");
        match algorithm {
            SigningAlgorithm::RS256 => assert_eq!(jwk["kty"], "RSA"),
            SigningAlgorithm::ES256 => {
                assert_eq!((jwk["kty"].as_str(), jwk["crv"].as_str()), (Some("EC"), Some("P-256")));
                for c in ["x", "y"] {
                    let bytes = URL_SAFE_NO_PAD.decode(jwk[c].as_str().unwrap()).unwrap();
                    assert_eq!(bytes.len(), 32, "{c}");
                }
            }
            SigningAlgorithm::EdDSA => {
                assert_eq!(
                    (jwk["kty"].as_str(), jwk["crv"].as_str()),
                    (Some("OKP"), Some("Ed25519"))
                );
                let x = URL_SAFE_NO_PAD.decode(jwk["x"].as_str().unwrap()).unwrap();
                assert_eq!(x.len(), 32);
            }
        }
        // the registry's verifier, from the JWKS text
        let verifier =
            Verifier::from_jwks_json(&serde_json::to_string(&jwks).unwrap(), ISS, AUD).unwrap();
        assert_eq!(verifier.algorithm_of(ring.signing().kid()), Some(algorithm));
        let principal = verifier.verify(&token, NOW + 1).unwrap();
        assert_eq!(principal.agent_id(), "support");
        // `jsonwebtoken` alone, against the published key and its `alg`
        let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(jwk.clone()).unwrap();
        let alg = jsonwebtoken::Algorithm::from_str_alg(jwk.common.key_algorithm.unwrap());
        let mut validation = Validation::new(alg);
        validation.set_audience(&[AUD]);
        validation.set_issuer(&[ISS]);
        validation.validate_exp = false;
        let data = jsonwebtoken::decode::<Principal>(
            &token,
            &DecodingKey::from_jwk(&jwk).unwrap(),
            &validation,
        )
        .unwrap();
        assert_eq!(data.claims.session_id(), "s-1");
        // and a token of another key of the same algorithm does not verify
        let other = KeyRing::generate_for(algorithm, NOW).unwrap();
        let forged = signed_as(&other, algorithm.jwt(), ring.signing().kid(), &part(&token, 1));
        assert_eq!(verifier.verify(&forged, NOW + 1), Err(TokenError::BadSignature));
    }
}

trait FromKeyAlgorithm {
    fn from_str_alg(alg: jsonwebtoken::jwk::KeyAlgorithm) -> Self;
}

impl FromKeyAlgorithm for jsonwebtoken::Algorithm {
    fn from_str_alg(alg: jsonwebtoken::jwk::KeyAlgorithm) -> Self {
        alg.to_string().parse().unwrap()
    }
}

#[test]
fn a_header_naming_another_algorithm_than_its_key_carries_is_refused() {
    let rsa = KeyRing::generate_for(SigningAlgorithm::RS256, NOW).unwrap();
    let ec = KeyRing::generate_for(SigningAlgorithm::ES256, NOW).unwrap();
    let ed = KeyRing::generate_for(SigningAlgorithm::EdDSA, NOW).unwrap();
    let mut jwks = rsa.jwks();
    jwks.keys.extend(ec.jwks().keys);
    jwks.keys.extend(ed.jwks().keys);
    let verifier = Verifier::new(&jwks, ISS, AUD).unwrap();
    let claims = part(&rsa.issue(&request(NOW)).unwrap(), 1);
    use jsonwebtoken::Algorithm::{ES256, EdDSA, RS256};
    // each key's own algorithm verifies
    for (ring, alg) in [(&rsa, RS256), (&ec, ES256), (&ed, EdDSA)] {
        let token = signed_as(ring, alg, ring.signing().kid(), &claims);
        assert!(verifier.verify(&token, NOW + 1).is_ok(), "{alg:?}");
    }
    // a token signed by one key, its header naming that key's algorithm and another
    // key's kid: refused before any signature is checked
    for (signer, alg, named) in [
        (&ec, ES256, &rsa),
        (&ed, EdDSA, &rsa),
        (&rsa, RS256, &ec),
        (&ed, EdDSA, &ec),
        (&rsa, RS256, &ed),
        (&ec, ES256, &ed),
    ] {
        let token = signed_as(signer, alg, named.signing().kid(), &claims);
        let name = format!("{alg:?}");
        assert_eq!(
            verifier.verify(&token, NOW + 1),
            Err(TokenError::AlgorithmNotAllowed(name.clone())),
            "{name} with the {} key",
            named.signing().algorithm()
        );
    }
    // the classic confusion: HS256 keyed with a published key's text
    let hs = jsonwebtoken::encode(
        &Header {
            kid: Some(rsa.signing().kid().to_owned()),
            ..Header::new(jsonwebtoken::Algorithm::HS256)
        },
        &claims,
        &EncodingKey::from_secret(serde_json::to_string(&jwks).unwrap().as_bytes()),
    )
    .unwrap();
    assert_eq!(verifier.verify(&hs, NOW + 1), Err(TokenError::AlgorithmNotAllowed("HS256".into())));
    // a published key whose `alg` its type cannot sign with verifies nothing
    let mut lying = ec.jwks();
    lying.keys[0].common.key_algorithm = Some(jsonwebtoken::jwk::KeyAlgorithm::RS256);
    assert!(matches!(Verifier::new(&lying, ISS, AUD), Err(TokenError::KeySet(_))));
}

#[test]
fn a_ring_of_mixed_algorithms_reads_back_and_older_rings_stay_rs256() {
    let ring = KeyRing::generate(NOW).unwrap();
    let ring = ring
        .rotate_to(SigningKey::generate_for(SigningAlgorithm::ES256).unwrap(), NOW + 1, 3_600)
        .unwrap();
    let ring = ring
        .rotate_to(SigningKey::generate_for(SigningAlgorithm::EdDSA).unwrap(), NOW + 2, 3_600)
        .unwrap();
    let text = ring.to_text();
    let back = KeyRing::parse(&text).unwrap();
    let algorithms: Vec<_> = back.keys().iter().map(|k| k.key.algorithm()).collect();
    assert_eq!(
        algorithms,
        [SigningAlgorithm::EdDSA, SigningAlgorithm::ES256, SigningAlgorithm::RS256]
    );
    let kids: Vec<_> = ring.keys().iter().map(|k| k.key.kid().to_owned()).collect();
    let kids_back: Vec<_> = back.keys().iter().map(|k| k.key.kid().to_owned()).collect();
    assert_eq!(kids, kids_back);
    // an RS256 key is written without `algorithm`, as before keys had one
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["keys"][0]["algorithm"], "EdDSA");
    assert_eq!(doc["keys"][1]["algorithm"], "ES256");
    assert!(doc["keys"][2].get("algorithm").is_none(), "{text}");
    // a key read under another algorithm than its own is refused
    let mut swapped = doc.clone();
    swapped["keys"][0]["algorithm"] = "ES256".into();
    assert!(KeyRing::parse(&swapped.to_string()).is_err());
    swapped = doc.clone();
    swapped["keys"][1]["algorithm"] = "RS256".into();
    assert!(KeyRing::parse(&swapped.to_string()).is_err());
    swapped = doc;
    swapped["keys"][1]["algorithm"] = "HS256".into();
    assert!(KeyRing::parse(&swapped.to_string()).is_err());
    // every key of the ring verifies its tokens
    let verifier = back.verifier(ISS, AUD).unwrap();
    let token = back.issue(&request(NOW + 2)).unwrap();
    assert_eq!(part(&token, 0)["alg"], "EdDSA");
    assert!(verifier.verify(&token, NOW + 3).is_ok());
}
