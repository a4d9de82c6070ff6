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

/// The session attribute carrying a resolution's principal token.
fn token_of(resolution: &registry_core::resolve::Resolution) -> String {
    let state = resolution.inline_agent.inline_session_state.as_ref().unwrap();
    state.session_attributes[registry_token::SESSION_ATTRIBUTE].clone()
}

fn header_of(token: &str) -> serde_json::Value {
    use base64::Engine;
    let head = token.split('.').next().unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(head).unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test]
async fn a_session_resolved_again_gets_the_same_token_until_its_grant_context_or_key_changes() {
    use registry_core::{Definition, RequestContext};
    use registry_store::{Expected, Store};
    let dir = tempfile::tempdir().unwrap();
    let store: std::sync::Arc<dyn Store> = std::sync::Arc::new(
        registry_store_sqlite::SqliteStore::open(dir.path().join("r.db")).unwrap(),
    );
    let keys = common::principal_keys(dir.path()).await;
    let registry = registry_api::Registry::new(store.clone()).with_principal_keys(keys.clone());
    let tool = |id: &str, name: &str| {
        let mut t = common::tool_json(id);
        t["name"] = json!(name);
        Definition::Tool(serde_json::from_value(t).unwrap())
    };
    store.put(tool("t0", "t0"), Expected::Absent).await.unwrap();
    store.put(tool("t1", "t1"), Expected::Absent).await.unwrap();
    let agent = |tools: &[&str]| {
        Definition::Agent(serde_json::from_value(common::agent_json("main", tools)).unwrap())
    };
    store.put(agent(&["t0"]), Expected::Absent).await.unwrap();
    let ctx: RequestContext =
        serde_json::from_value(json!({"user": {"userId": "u-1", "userType": "internal-user"}}))
            .unwrap();
    let resolver = &registry.resolver;
    let first = token_of(&resolver.resolve("main", &ctx, Some("s-1")).await.unwrap());
    // nine more turns of the conversation: the same token, byte for byte
    for _ in 0..9 {
        let again = token_of(&resolver.resolve("main", &ctx, Some("s-1")).await.unwrap());
        assert_eq!(again.as_bytes(), first.as_bytes());
    }
    // the same through the JSON text of the context (the HTTP route's path)
    let json = serde_json::to_vec(&ctx).unwrap();
    let prepared = registry_access::PreparedContext::read_json(&json).unwrap();
    let through_json = resolver
        .resolve(
            "main",
            registry_api::service::ResolveContext::Prepared(Box::new(prepared), &json),
            Some("s-1"),
        )
        .await
        .unwrap();
    assert_eq!(token_of(&through_json), first);
    // another session: its own token
    let other = token_of(&resolver.resolve("main", &ctx, Some("s-2")).await.unwrap());
    assert_ne!(other, first);
    // a tool added to the agent changes the grant: a new token, reused in turn
    store.put(agent(&["t0", "t1"]), Expected::Version(1)).await.unwrap();
    let granted_more = token_of(&resolver.resolve("main", &ctx, Some("s-1")).await.unwrap());
    assert_ne!(granted_more, first);
    assert!(keys.verifier().verify(&granted_more, chrono::Utc::now().timestamp()).is_ok());
    let again = token_of(&resolver.resolve("main", &ctx, Some("s-1")).await.unwrap());
    assert_eq!(again, granted_more);
    // another context: a new token carrying it
    let changed: RequestContext = serde_json::from_value(
        json!({"user": {"userId": "u-1", "userType": "internal-user"}, "account": {"accountId": "a-9"}}),
    )
    .unwrap();
    let in_context = token_of(&resolver.resolve("main", &changed, Some("s-1")).await.unwrap());
    assert_ne!(in_context, granted_more);
    let principal = keys.verifier().verify(&in_context, chrono::Utc::now().timestamp()).unwrap();
    assert!(principal.context_json().contains("a-9"));
    // a rotated key: a new token, signed by the new key
    let old_kid = header_of(&granted_more)["kid"].clone();
    keys.rotate().await.unwrap();
    let rotated = token_of(&resolver.resolve("main", &ctx, Some("s-1")).await.unwrap());
    assert_ne!(rotated, granted_more);
    assert_ne!(header_of(&rotated)["kid"], old_kid);
    assert_eq!(header_of(&rotated)["kid"], keys.ring().signing().kid());
}

#[tokio::test]
async fn the_configured_algorithm_makes_new_keys_and_keys_made_before_keep_theirs() {
    use registry_api::principal_keys::{
        FileKeyStore, PrincipalKeys, SigningAlgorithm, TokenSettings,
    };
    let dir = tempfile::tempdir().unwrap();
    let open = |algorithm| {
        let store = std::sync::Arc::new(FileKeyStore::in_dir(dir.path()));
        let settings = TokenSettings { algorithm, ..TokenSettings::new(common::ISSUER) };
        async move { std::sync::Arc::new(PrincipalKeys::open(store, settings).await.unwrap()) }
    };
    let keys = open(SigningAlgorithm::ES256).await;
    assert_eq!(keys.ring().signing().algorithm(), SigningAlgorithm::ES256);
    // opened again with another algorithm: the ring keeps its key until a rotation
    let keys = open(SigningAlgorithm::EdDSA).await;
    assert_eq!(keys.ring().signing().algorithm(), SigningAlgorithm::ES256);
    keys.rotate().await.unwrap();
    let algorithms: Vec<_> = keys.ring().keys().iter().map(|k| k.key.algorithm()).collect();
    assert_eq!(algorithms, [SigningAlgorithm::EdDSA, SigningAlgorithm::ES256]);
    let s = common::start_with_registry(Default::default(), |r| r.with_principal_keys(keys)).await;
    let r = s.send(s.req(Method::GET, "/.well-known/jwks.json", "")).await;
    let published: Vec<_> = r.body["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["kty"].as_str().unwrap(), k["alg"].as_str().unwrap()))
        .collect();
    assert_eq!(published, [("OKP", "EdDSA"), ("EC", "ES256")]);
    let r = s.send(s.req(Method::GET, "/.well-known/openid-configuration", "")).await;
    assert_eq!(r.body["id_token_signing_alg_values_supported"], json!(["RS256", "EdDSA", "ES256"]));
    let r = s.send(s.req(Method::GET, "/keys", &s.admin)).await;
    assert_eq!(r.body[0]["algorithm"], "EdDSA", "{}", r.text);
    assert_eq!(r.body[1]["algorithm"], "ES256");
}
