//! The principal token's routes on the router over HTTP: the key set and issuer metadata
//! for anyone (cacheable), the keys for the admin alone, a rotation seen in the key set,
//! and a registry without keys saying so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use reqwest::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn the_key_set_is_public_and_the_keys_are_the_admins() {
    let dir = tempfile::tempdir().unwrap();
    let keys = common::principal_keys(dir.path()).await;
    let s = common::start_with_registry(Default::default(), |r| r.with_principal_keys(keys)).await;
    let r = s.send(s.req(Method::GET, "/.well-known/openid-configuration", "")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.headers["cache-control"], "public, max-age=300");
    assert_eq!(r.body["issuer"], common::ISSUER);
    assert_eq!(r.body["jwks_uri"], format!("{}/.well-known/jwks.json", common::ISSUER));
    // the members OIDC Discovery 1.0 and RFC 8414 require (no OAuth grant: no
    // authorization or token endpoint)
    assert_eq!(r.body["response_types_supported"], json!(["id_token"]));
    assert_eq!(r.body["subject_types_supported"], json!(["public"]));
    assert_eq!(r.body["id_token_signing_alg_values_supported"], json!(["RS256"]));
    assert_eq!(r.body["grant_types_supported"], json!([]));
    let r = s.send(s.req(Method::GET, "/.well-known/jwks.json", "")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.headers["cache-control"], "public, max-age=300");
    let jwk = &r.body["keys"][0];
    assert_eq!(
        (jwk["kty"].as_str(), jwk["alg"].as_str(), jwk["use"].as_str()),
        (Some("RSA"), Some("RS256"), Some("sig"))
    );
    assert!(jwk.get("d").is_none() && jwk.get("p").is_none(), "public members only: {jwk}");
    let first = jwk["kid"].as_str().unwrap().to_owned();

    for token in [&s.reader, &s.editor, &s.runtime] {
        s.send(s.req(Method::GET, "/keys", token)).await.assert_problem(403, "FORBIDDEN");
        s.send(s.req(Method::POST, "/keys/rotate", token)).await.assert_problem(403, "FORBIDDEN");
    }
    s.send(s.req(Method::POST, "/keys/rotate", "")).await.assert_problem(401, "UNAUTHENTICATED");
    let r = s.send(s.req(Method::POST, "/keys/rotate", &s.admin)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body[1]["kid"], first.as_str());
    assert_eq!(r.body[0]["signing"], true);
    let r = s.send(s.req(Method::GET, "/.well-known/jwks.json", "")).await;
    assert_eq!(r.body["keys"].as_array().unwrap().len(), 2, "the old key stays published");
    let r = s.send(s.req(Method::DELETE, &format!("/keys/{first}"), &s.admin)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = s.send(s.req(Method::GET, "/.well-known/jwks.json", "")).await;
    assert_eq!(r.body["keys"].as_array().unwrap().len(), 1);
    assert_ne!(r.body["keys"][0]["kid"], first.as_str());
    // the key file follows, and a registry opened on it again signs with the new key
    let again = common::principal_keys(dir.path()).await;
    assert_eq!(again.ring().keys().len(), 1);
    assert_ne!(again.ring().signing().kid(), first);
}

#[tokio::test]
async fn a_registry_without_keys_has_no_key_set_and_issues_no_token() {
    let s = common::start().await;
    for path in ["/.well-known/jwks.json", "/.well-known/openid-configuration"] {
        s.send(s.req(Method::GET, path, "")).await.assert_problem(404, "NOT_FOUND");
    }
    s.send(s.req(Method::POST, "/keys/rotate", &s.admin)).await.assert_problem(404, "NOT_FOUND");
    let r = s
        .send(s.req(Method::POST, "/agents/nobody/resolve?sessionId=x", &s.reader).json(&json!({})))
        .await;
    r.assert_invalid_at("/sessionId");
}
