#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The principal token's surfaces attacked over real HTTP (decisions 83, 84): the keys
//! routes by every role and a principal token, odd key ids, concurrent rotations; the
//! key set and issuer metadata with odd methods; resolve's `sessionId`; and forged,
//! re-encoded and misdirected tokens presented as a discovery bearer.

mod common;

use std::collections::BTreeSet;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::{Server, agent_json};
use registry_api::principal_keys::{KeyRing, PrincipalKeys};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::Digest as _;

/// A server issuing principal tokens with keys in `dir`, with one agent `a1`.
async fn server(dir: &std::path::Path) -> Server {
    let keys = common::principal_keys(dir).await;
    let s = common::start_with_registry(Default::default(), |r| r.with_principal_keys(keys)).await;
    s.create_agent(&agent_json("a1", &[])).await;
    s
}

async fn kids(s: &Server) -> BTreeSet<String> {
    let r = s.send(s.req(Method::GET, "/.well-known/jwks.json", "")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.body["keys"].as_array().unwrap().iter().map(|k| k["kid"].as_str().unwrap().into()).collect()
}

async fn resolve(s: &Server, session: Option<&str>) -> common::Reply {
    let path = match session {
        Some(id) => format!("/agents/a1/resolve?sessionId={id}"),
        None => "/agents/a1/resolve".to_owned(),
    };
    let context = json!({"user": {"userId": "u1", "userType": "internal-user"}});
    s.send(s.req(Method::POST, &path, &s.reader).json(&context)).await
}

fn token_of(r: &common::Reply) -> String {
    r.body["inlineAgent"]["inlineSessionState"]["sessionAttributes"]["registryPrincipal"]
        .as_str()
        .unwrap_or_else(|| panic!("no token: {}", r.text))
        .to_owned()
}

#[tokio::test]
async fn only_the_admin_reads_or_changes_keys_and_a_refusal_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(dir.path()).await;
    let principal = token_of(&resolve(&s, None).await);
    let before = kids(&s).await;
    let signing = before.iter().next().unwrap().clone();
    for (token, status) in [
        (s.reader.as_str(), 403),
        (s.editor.as_str(), 403),
        (s.runtime.as_str(), 403),
        (s.approver.as_str(), 403),
        (s.editor_as_approver.as_str(), 403),
        (principal.as_str(), 401),
        ("", 401),
        ("not-a-token", 401),
    ] {
        for (method, path) in [
            (Method::GET, "/keys".to_owned()),
            (Method::POST, "/keys/rotate".to_owned()),
            (Method::DELETE, format!("/keys/{signing}")),
        ] {
            let r = s.send(s.req(method.clone(), &path, token)).await;
            assert_eq!(r.status.as_u16(), status, "{method} {path}: {}", r.text);
            assert_eq!(r.content_type(), "application/problem+json");
        }
    }
    assert_eq!(kids(&s).await, before, "no refusal changed the keys");
    // odd key ids: problems, never a 500, nothing removed
    let long = "k".repeat(7_000);
    for (kid, status) in [
        ("%FF", 400),
        ("..", 404),
        ("%2E%2E%2Fkeys", 404),
        (long.as_str(), 404),
        ("%00", 404),
        (signing.as_str(), 409),
    ] {
        let r = s.send(s.req(Method::DELETE, &format!("/keys/{kid}"), &s.admin)).await;
        assert!(
            r.status.as_u16() == status
                || (kid == ".." && r.status == StatusCode::METHOD_NOT_ALLOWED),
            "{kid}: {} {}",
            r.status,
            r.text
        );
        assert_eq!(r.content_type(), "application/problem+json", "{kid}: {}", r.text);
    }
    assert_eq!(kids(&s).await, before);
    // the key set and the metadata are read-only
    for path in ["/.well-known/jwks.json", "/.well-known/openid-configuration"] {
        for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH] {
            let r = s.send(s.req(method.clone(), path, &s.admin)).await;
            assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}: {}", r.text);
        }
        let r = s
            .send(s.req(Method::GET, &format!("{path}?kid=x&kid=y&{}", "a=b&".repeat(500)), ""))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
    }
    assert_eq!(kids(&s).await, before);
}

// several workers, as `serve` runs: rotations really run at once
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_rotations_lose_no_key_that_signed() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(dir.path()).await;
    let first = kids(&s).await;
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let (base, client, admin) = (s.base.clone(), s.client.clone(), s.admin.clone());
        tasks.push(tokio::spawn(async move {
            let r = client.post(format!("{base}/keys/rotate")).bearer_auth(admin).send().await;
            let r = r.unwrap();
            let status = r.status();
            (status, r.json::<Value>().await.unwrap_or(Value::Null))
        }));
    }
    let mut signed: BTreeSet<String> = first.clone();
    for task in tasks {
        let (status, body) = task.await.unwrap();
        assert_eq!(status, StatusCode::OK, "{body}");
        let kid = body[0]["kid"].as_str().unwrap().to_owned();
        assert_eq!(body[0]["signing"], true);
        signed.insert(kid);
    }
    // every key that was the signing key at some point may have signed tokens: each
    // stays published, in this process and in the key file alike
    let published = kids(&s).await;
    assert!(signed.is_subset(&published), "lost keys: {:?}", signed.difference(&published));
    let stored = common::principal_keys(dir.path()).await;
    let stored: BTreeSet<String> =
        stored.ring().keys().iter().map(|k| k.key.kid().to_owned()).collect();
    assert_eq!(stored, published, "the key file holds what is published");
    // and a token issued now verifies with what is published
    let token = token_of(&resolve(&s, None).await);
    let r = s.send(s.req(Method::GET, "/v0.1/servers", &token)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

#[tokio::test]
async fn a_bad_session_id_is_a_400_and_issues_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(dir.path()).await;
    let long = "s".repeat(101);
    for id in ["", "x", long.as_str(), "a%2Fb", "a b", "%C3%A9%C3%A9", "a%00b", "s-1&sessionId=s-2"]
    {
        let r = resolve(&s, Some(id)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{id:?}: {}", r.text);
        assert!(r.error_paths().iter().any(|p| p == "/sessionId"), "{id:?}: {}", r.text);
        assert!(!r.text.contains("registryPrincipal"), "{id:?}");
    }
    // the edges that are session ids
    for id in ["ab", "..", &"s".repeat(100), "a.b_c:d-e"] {
        let r = resolve(&s, Some(id)).await;
        assert_eq!(r.status, StatusCode::OK, "{id}: {}", r.text);
        assert_eq!(r.body["sessionId"], *id);
    }
}

/// HMAC-SHA256 (RFC 2104) of `message` under `key`: a forger's HS256 signature.
fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&sha2::Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = sha2::Sha256::new().chain_update(pad(0x36)).chain_update(message).finalize();
    sha2::Sha256::new().chain_update(pad(0x5c)).chain_update(inner).finalize().to_vec()
}

fn encode(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(value).unwrap())
}

#[tokio::test]
async fn forged_and_misdirected_tokens_discover_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(dir.path()).await;
    let good = token_of(&resolve(&s, Some("s-1")).await);
    let (head, rest) = good.split_once('.').unwrap();
    let (body, signature) = rest.split_once('.').unwrap();
    let header: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(head).unwrap()).unwrap();
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(body).unwrap()).unwrap();
    let kid = header["kid"].as_str().unwrap().to_owned();
    let jwks = s.send(s.req(Method::GET, "/.well-known/jwks.json", "")).await;

    let mut forged = Vec::new();
    // alg none, with and without a signature
    let none = encode(&json!({"alg": "none", "typ": "JWT", "kid": kid}));
    forged.push(format!("{none}.{body}."));
    forged.push(format!("{none}.{body}.{signature}"));
    // HS256 keyed with the public key (its JWK, its modulus, the whole JWKS)
    let hs = encode(&json!({"alg": "HS256", "typ": "JWT", "kid": kid}));
    for secret in [
        jwks.body["keys"][0].to_string(),
        jwks.body["keys"][0]["n"].as_str().unwrap().to_owned(),
        jwks.text.clone(),
    ] {
        let signing_input = format!("{hs}.{body}");
        let mac = URL_SAFE_NO_PAD.encode(hmac_sha256(secret.as_bytes(), signing_input.as_bytes()));
        forged.push(format!("{signing_input}.{mac}"));
    }
    // claims changed under the real signature: another agent, another audience, later exp
    for (claim, value) in [
        ("act", json!({"sub": "other-agent"})),
        ("aud", json!("another-audience")),
        ("exp", json!(claims["exp"].as_i64().unwrap() + 86_400)),
        ("sid", json!("another-session")),
    ] {
        let mut changed = claims.clone();
        changed[claim] = value;
        forged.push(format!("{head}.{}.{signature}", encode(&changed)));
    }
    // a kid that names nothing, a kid that is a URL (nothing is fetched), a jku
    for extra in [
        json!({"alg": "RS256", "kid": "no-such-kid"}),
        json!({"alg": "RS256", "kid": format!("{}/.well-known/jwks.json", s.base)}),
        json!({"alg": "RS256", "kid": kid, "jku": format!("{}/.well-known/jwks.json", s.base)}),
        json!({"alg": "RS256", "kid": kid, "crit": ["exp"]}),
        json!({"alg": "RS512", "kid": kid}),
        json!({"alg": "PS256", "kid": kid}),
    ] {
        forged.push(format!("{}.{body}.{signature}", encode(&extra)));
    }
    // truncated and re-encoded
    forged.push(good[..good.len() - 1].to_owned());
    forged.push(good[..good.rfind('.').unwrap()].to_owned());
    forged.push(format!("{good}="));
    forged.push(format!("{good}.{signature}"));
    forged.push(good.replace('-', "+").replace('_', "/"));
    forged.push(format!(
        "{head}.{}.{signature}",
        base64::engine::general_purpose::URL_SAFE.encode(URL_SAFE_NO_PAD.decode(body).unwrap())
    ));
    forged.push(format!("{}.{body}.{signature}", head.to_lowercase()));
    // a token issued by another registry (its own key)
    let other_dir = tempfile::tempdir().unwrap();
    let other = server(other_dir.path()).await;
    forged.push(token_of(&resolve(&other, None).await));
    // huge
    forged.push(format!("{head}.{}.{signature}", "A".repeat(9_000)));

    for (i, token) in forged.iter().enumerate() {
        for path in ["/v0.1/servers", "/tools/search?q=a", "/.well-known/ai-catalog.json"] {
            let r = s.send(s.req(Method::GET, path, token)).await;
            assert!(
                r.status == StatusCode::UNAUTHORIZED || r.status.as_u16() == 431,
                "forgery {i} on {path}: {} {}",
                r.status,
                r.text
            );
        }
    }
    // the good one still discovers
    let r = s.send(s.req(Method::GET, "/v0.1/servers", &good)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    // as a guard sends them to authorize: each forgery refused at its header
    s.create_tool(&common::tool_json("weather@1.0.0")).await;
    let call = json!({"call": {"function": "get_weather", "arguments": {}}});
    let authorize = |token: &str| {
        s.req(Method::POST, "/tools/weather@1.0.0/authorize", &s.runtime)
            .header("x-registry-principal", token)
            .json(&call)
    };
    for (i, token) in forged.iter().enumerate() {
        let r = s.send(authorize(token)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "forgery {i}: {}", r.text);
        assert_eq!(r.error_paths(), ["/headers/X-Registry-Principal"], "forgery {i}: {}", r.text);
    }
    // the good token: twice, from another session, or with a principal in the body too
    let r = s.send(authorize(&good).header("x-registry-principal", good.as_str())).await;
    r.assert_problem(400, "BAD_REQUEST");
    let r = s.send(authorize(&good).header("x-registry-session", "another-session")).await;
    assert_eq!(r.error_paths(), ["/headers/X-Registry-Session"], "{}", r.text);
    let with_principal = json!({"call": call["call"], "agentId": "a1", "sessionId": "s-2",
        "context": {"user": {"userId": "admin"}}});
    let r = s
        .send(
            s.req(Method::POST, "/tools/weather@1.0.0/authorize", &s.runtime)
                .header("x-registry-principal", good.as_str())
                .json(&with_principal),
        )
        .await;
    assert_eq!(r.error_paths(), ["/context", "/agentId", "/sessionId"], "{}", r.text);
    // a principal token is no bearer for authorize
    let r = s.send(s.req(Method::POST, "/tools/weather@1.0.0/authorize", &good).json(&call)).await;
    r.assert_problem(401, "UNAUTHENTICATED");
    // a key removed refuses its tokens at once
    let rotated = s.send(s.req(Method::POST, "/keys/rotate", &s.admin)).await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.text);
    let r = s.send(s.req(Method::GET, "/v0.1/servers", &good)).await;
    assert_eq!(r.status, StatusCode::OK, "the old key still verifies: {}", r.text);
    let r = s.send(s.req(Method::DELETE, &format!("/keys/{kid}"), &s.admin)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = s.send(s.req(Method::GET, "/v0.1/servers", &good)).await;
    r.assert_problem(401, "UNAUTHENTICATED");
    let _ = (KeyRing::parse, PrincipalKeys::settings);
}
