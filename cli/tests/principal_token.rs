#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The principal token from outside (SPEC section 16, decisions 83 and 84), on the built
//! binary: resolve binds it to a session; its public keys and issuer are served without
//! authentication; PyJWT (an outside library) and `jsonwebtoken` (through
//! `registry-token`) verify it; the token broker refuses every kind of bad token with a
//! decision line naming why; `keys rotate` and `keys remove` change what verifies.

mod common;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::{Serve, serve};
use registry_token::{KeyRing, TokenRequest, Verifier};
use reqwest::Method;
use serde_json::{Value, json};

const AUD: &str = "agent-registry";

fn now_s() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or_default()
}

/// Resolves the example agent for bob in `session` (none: the registry makes one);
/// the response.
async fn resolve(s: &Serve, session: Option<&str>) -> Value {
    let path = match session {
        Some(id) => format!("/agents/weather-agent/resolve?sessionId={id}"),
        None => "/agents/weather-agent/resolve".to_owned(),
    };
    let context = json!({"user": {"userId": "bob", "userType": "internal-user"}});
    let (status, resolved) = s.call(Method::POST, &path, Some(&s.token), Some(context)).await;
    assert_eq!(status, 200, "{resolved}");
    resolved
}

fn token_of(resolved: &Value) -> String {
    resolved["inlineAgent"]["inlineSessionState"]["sessionAttributes"]["registryPrincipal"]
        .as_str()
        .unwrap_or_else(|| panic!("no token in {resolved}"))
        .to_owned()
}

fn header(token: &str) -> Value {
    let head = token.split('.').next().unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(head).unwrap()).unwrap()
}

/// The issuer the registry names, and a verifier of the key set it serves now.
async fn published(s: &Serve) -> (String, Verifier) {
    let reply = reqwest::get(format!("{}/.well-known/openid-configuration", s.base)).await.unwrap();
    assert_eq!(reply.status(), 200);
    assert_eq!(reply.headers()["cache-control"], "public, max-age=300");
    let discovery: Value = reply.json().await.unwrap();
    let issuer = discovery["issuer"].as_str().unwrap().to_owned();
    assert_eq!(discovery["jwks_uri"], format!("{issuer}/.well-known/jwks.json"));
    let reply = reqwest::get(format!("{}/.well-known/jwks.json", s.base)).await.unwrap();
    assert_eq!(reply.status(), 200, "no authentication needed");
    assert_eq!(reply.headers()["cache-control"], "public, max-age=300");
    let jwks = reply.text().await.unwrap();
    assert!(!jwks.contains("\"d\""), "no private member: {jwks}");
    let verifier = Verifier::from_jwks_json(&jwks, issuer.clone(), AUD).unwrap();
    (issuer, verifier)
}

#[tokio::test(flavor = "multi_thread")]
async fn resolve_binds_the_token_to_the_session_and_the_published_keys_verify_it() {
    let s = serve(None, &[]);
    s.healthy().await;
    let (_, verifier) = published(&s).await;
    let resolved = resolve(&s, Some("chat-42.a_b:c-d")).await;
    assert_eq!(resolved["sessionId"], "chat-42.a_b:c-d");
    let principal = verifier.verify(&token_of(&resolved), now_s()).unwrap();
    assert_eq!(principal.session_id(), "chat-42.a_b:c-d");
    assert_eq!(principal.agent_id(), "weather-agent");
    assert_eq!(principal.sub.as_deref(), Some("bob"));
    assert!(principal.exp - principal.iat == 3_600, "one hour by default");
    let context: Value = serde_json::from_str(principal.context_json()).unwrap();
    assert_eq!(context["user"]["userType"], "internal-user");
    // no session asked: one is made, valid as Bedrock's, and the token carries it
    let resolved = resolve(&s, None).await;
    let made = resolved["sessionId"].as_str().unwrap();
    assert!(registry_core::session::session_id_problem(made).is_none(), "{made}");
    assert_eq!(verifier.verify(&token_of(&resolved), now_s()).unwrap().session_id(), made);
    // a session id Bedrock would refuse is refused, nothing resolved
    for bad in ["a", "has%20space", &"x".repeat(101)] {
        let (status, problem) = s
            .call(
                Method::POST,
                &format!("/agents/weather-agent/resolve?sessionId={bad}"),
                Some(&s.token),
                Some(json!({})),
            )
            .await;
        assert_eq!(status, 400, "{problem}");
        assert_eq!(problem["errors"][0]["path"], "/sessionId", "{problem}");
    }
}

/// Runs `script` with PyJWT's Python, the arguments after it; its standard output.
fn python(script: &str, args: &[&str]) -> String {
    let python = std::env::var("PYJWT_PYTHON").expect("PYJWT_PYTHON (scripts/pyjwt.sh)");
    let out = std::process::Command::new(python).arg("-c").arg(script).args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs PyJWT: PYJWT_PYTHON from scripts/pyjwt.sh (scripts/test.sh sets it)"]
async fn pyjwt_verifies_a_resolved_token_against_the_jwks_over_http() {
    let s = serve(None, &[]);
    s.healthy().await;
    let (issuer, _) = published(&s).await;
    let token = token_of(&resolve(&s, Some("py-session")).await);
    let script = r#"
import json, sys, jwt
token, issuer, url = sys.argv[1], sys.argv[2], sys.argv[3]
key = jwt.PyJWKClient(url).get_signing_key_from_jwt(token)
claims = jwt.decode(token, key.key, algorithms=["RS256"], audience="agent-registry", issuer=issuer)
print(json.dumps(claims))
"#;
    let url = format!("{}/.well-known/jwks.json", s.base);
    let claims: Value = serde_json::from_str(&python(script, &[&token, &issuer, &url])).unwrap();
    assert_eq!(claims["sid"], "py-session");
    assert_eq!(claims["act"]["sub"], "weather-agent");
    assert_eq!(claims["sub"], "bob");
    // and refuses a token re-signed with another key under the same kid
    let other = KeyRing::generate(0).unwrap();
    let mut head = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    head.kid = header(&token)["kid"].as_str().map(str::to_owned);
    let forged = {
        let ring: Value = serde_json::from_str(&other.to_text()).unwrap();
        let der = base64::engine::general_purpose::STANDARD
            .decode(ring["keys"][0]["privateKey"].as_str().unwrap())
            .unwrap();
        jsonwebtoken::encode(&head, &claims, &jsonwebtoken::EncodingKey::from_rsa_der(&der))
            .unwrap()
    };
    let refuse = r#"
import sys, jwt
token, issuer, url = sys.argv[1], sys.argv[2], sys.argv[3]
key = jwt.PyJWKClient(url).get_signing_key_from_jwt(token)
try:
    jwt.decode(token, key.key, algorithms=["RS256"], audience="agent-registry", issuer=issuer)
    print("accepted")
except jwt.InvalidSignatureError:
    print("refused")
"#;
    assert_eq!(python(refuse, &[&forged, &issuer, &url]).trim(), "refused");
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs PyJWT: PYJWT_PYTHON from scripts/pyjwt.sh (scripts/test.sh sets it)"]
async fn pyjwt_and_jsonwebtoken_verify_es256_and_eddsa_tokens_against_the_jwks() {
    use registry_token::SigningAlgorithm;
    for algorithm in [SigningAlgorithm::ES256, SigningAlgorithm::EdDSA] {
        // a ring of that algorithm in the data directory: `serve` signs with it (a
        // ring made with REGISTRY_TOKEN_ALGORITHM set is the same document)
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        registry_store::create_private_dir(&data).unwrap();
        let ring = KeyRing::generate_for(algorithm, now_s()).unwrap();
        registry_store::write_private_file(
            &data.join("signing-keys.json"),
            ring.to_text().as_bytes(),
        )
        .unwrap();
        let s = common::serve_in(dir, data, None, &[]);
        s.healthy().await;
        let (issuer, verifier) = published(&s).await;
        let token = token_of(&resolve(&s, Some("py-session")).await);
        assert_eq!(header(&token)["alg"], algorithm.as_str());
        // jsonwebtoken, through the registry's verifier, against the served JWKS
        assert_eq!(verifier.verify(&token, now_s()).unwrap().session_id(), "py-session");
        // PyJWT: the key from the JWKS URL, the algorithm the key set publishes for it
        let script = r#"
import json, sys, jwt
token, issuer, url = sys.argv[1], sys.argv[2], sys.argv[3]
kid = jwt.get_unverified_header(token)["kid"]
jwk = next(k for k in jwt.PyJWKClient(url).get_jwk_set().keys if k.key_id == kid)
alg = jwk._jwk_data["alg"]
claims = jwt.decode(token, jwk.key, algorithms=[alg], audience="agent-registry", issuer=issuer)
print(json.dumps({"alg": alg, "claims": claims}))
"#;
        let url = format!("{}/.well-known/jwks.json", s.base);
        let out: Value = serde_json::from_str(&python(script, &[&token, &issuer, &url])).unwrap();
        assert_eq!(out["alg"], algorithm.as_str());
        assert_eq!(out["claims"]["sid"], "py-session");
        assert_eq!(out["claims"]["act"]["sub"], "weather-agent");
        // a token of another key of the same algorithm under the served kid: refused by both
        let other = KeyRing::generate_for(algorithm, now_s()).unwrap();
        let forged_claims: Value = serde_json::from_str(&out["claims"].to_string()).unwrap();
        let der = {
            let text: Value = serde_json::from_str(&other.to_text()).unwrap();
            base64::engine::general_purpose::STANDARD
                .decode(text["keys"][0]["privateKey"].as_str().unwrap())
                .unwrap()
        };
        let key = match algorithm {
            SigningAlgorithm::ES256 => jsonwebtoken::EncodingKey::from_ec_der(&der),
            _ => jsonwebtoken::EncodingKey::from_ed_der(&der),
        };
        let mut head = jsonwebtoken::Header::new(algorithm.jwt());
        head.kid = header(&token)["kid"].as_str().map(str::to_owned);
        let forged = jsonwebtoken::encode(&head, &forged_claims, &key).unwrap();
        assert_eq!(
            verifier.verify(&forged, now_s()).unwrap_err(),
            registry_token::TokenError::BadSignature
        );
        let refuse = r#"
import sys, jwt
token, issuer, url = sys.argv[1], sys.argv[2], sys.argv[3]
kid = jwt.get_unverified_header(token)["kid"]
jwk = next(k for k in jwt.PyJWKClient(url).get_jwk_set().keys if k.key_id == kid)
try:
    jwt.decode(token, jwk.key, algorithms=[jwk._jwk_data["alg"]], audience="agent-registry", issuer=issuer)
    print("accepted")
except jwt.InvalidSignatureError:
    print("refused")
"#;
        assert_eq!(python(refuse, &[&forged, &issuer, &url]).trim(), "refused");
    }
}

/// A token of the data directory's key ring (as the registry would issue it, or as a
/// thief of the key file could) with `change` applied to the request.
fn issue_with_file_keys(
    s: &Serve,
    issuer: &str,
    change: impl FnOnce(&mut TokenRequest<'_>),
) -> String {
    let ring = KeyRing::parse(&std::fs::read_to_string(s.data.join("signing-keys.json")).unwrap())
        .unwrap();
    let mut request = TokenRequest {
        issuer,
        audience: AUD,
        user_id: Some("bob"),
        agent_id: "weather-agent",
        session_id: "s-1",
        context_json: r#"{"user":{"userId":"bob"}}"#,
        now: now_s(),
        ttl_seconds: 3_600,
    };
    change(&mut request);
    ring.issue(&request).unwrap()
}

/// Asks the broker for a tool token as `principal`; the 400's message and the broker's
/// decision line for it.
async fn refused_by_broker(
    s: &Serve,
    runtime: &str,
    principal: &str,
    reason: &str,
) -> (String, Value) {
    let reply = reqwest::Client::new()
        .post(format!("{}/tools/weather-basic@1.0.0/token", s.base))
        .bearer_auth(runtime)
        .header("X-Registry-Principal", principal)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 400);
    let problem: Value = reply.json().await.unwrap();
    assert_eq!(problem["errors"][0]["path"], "/headers/X-Registry-Principal", "{problem}");
    let message = problem["errors"][0]["message"].as_str().unwrap().to_owned();
    let line = s
        .wait_for_line("decisionId", |l| {
            l["point"] == "token" && l["reason"] == reason && l["message"] == message.as_str()
        })
        .await;
    (message, line)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_broker_refuses_every_bad_token_naming_why_and_rotation_changes_what_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let runtime = common::add_token(&data, "chat", "runtime");
    let s = common::serve_in(dir, data, Some("principal-admin-token-0123456789"), &[]);
    s.healthy().await;
    let (issuer, verifier) = published(&s).await;
    let good = token_of(&resolve(&s, Some("s-1")).await);
    let old_kid = header(&good)["kid"].as_str().unwrap().to_owned();

    // every refusal, with its decision line
    let (head, rest) = good.split_once('.').unwrap();
    let (payload, signature) = rest.split_once('.').unwrap();
    let jwks = reqwest::get(format!("{}/.well-known/jwks.json", s.base)).await.unwrap();
    let jwks = jwks.text().await.unwrap();
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
    let foreign = KeyRing::generate(0)
        .unwrap()
        .issue(&TokenRequest {
            issuer: &issuer,
            audience: AUD,
            user_id: None,
            agent_id: "weather-agent",
            session_id: "s-1",
            context_json: "{}",
            now: now_s(),
            ttl_seconds: 60,
        })
        .unwrap();
    let none = format!(
        "{}.{payload}.",
        URL_SAFE_NO_PAD.encode(format!(r#"{{"alg":"none","typ":"JWT","kid":"{old_kid}"}}"#))
    );
    let mut hs = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    hs.kid = Some(old_kid.clone());
    let hs256 = jsonwebtoken::encode(
        &hs,
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(jwks.as_bytes()),
    )
    .unwrap();
    let expired = issue_with_file_keys(&s, &issuer, |r| r.now = now_s() - 7_200);
    let wrong_aud = issue_with_file_keys(&s, &issuer, |r| r.audience = "somebody-else");
    let truncated = good[..good.len() - 20].to_owned();
    let reencoded = format!(
        "{head}.{}.{signature}",
        base64::engine::general_purpose::URL_SAFE.encode(URL_SAFE_NO_PAD.decode(payload).unwrap())
    );
    // a cut or re-encoded token is malformed or no longer matches its signature
    let broken = &["signature", "malformed"][..];
    for (token, reason, says) in [
        (foreign.as_str(), "INVALID_SIGNED_CONTEXT", &["not in the registry's key set"][..]),
        (none.as_str(), "INVALID_SIGNED_CONTEXT", &["algorithm `none` is not accepted"]),
        (hs256.as_str(), "INVALID_SIGNED_CONTEXT", &["algorithm `HS256` is not accepted"]),
        (expired.as_str(), "EXPIRED_SIGNED_CONTEXT", &["expired"]),
        (wrong_aud.as_str(), "INVALID_SIGNED_CONTEXT", &["audience"]),
        (truncated.as_str(), "INVALID_SIGNED_CONTEXT", broken),
        (reencoded.as_str(), "INVALID_SIGNED_CONTEXT", broken),
    ] {
        let (message, line) = refused_by_broker(&s, &runtime, token, reason).await;
        assert!(says.iter().any(|says| message.contains(says)), "{says:?}: {message}");
        assert_eq!(line["effect"], "deny", "{line}");
    }

    // rotation: the new key signs, the old one still verifies
    let (ok, out, err) = s.cli(&["keys", "rotate", "--output", "json"]);
    assert!(ok, "{err}");
    let keys: Value = serde_json::from_str(&out).unwrap();
    let new_kid = keys[0]["kid"].as_str().unwrap().to_owned();
    assert_ne!(new_kid, old_kid);
    assert_eq!(
        (keys[0]["signing"].as_bool(), keys[1]["signing"].as_bool()),
        (Some(true), Some(false))
    );
    assert_eq!(keys[1]["kid"], old_kid.as_str());
    assert!(keys[1]["tokensValidUntil"].as_i64().unwrap() >= now_s() + 3_590, "{keys}");
    let fresh = token_of(&resolve(&s, Some("s-1")).await);
    assert_eq!(header(&fresh)["kid"], new_kid.as_str());
    let (_, rotated) = published(&s).await;
    assert!(rotated.verify(&good, now_s()).is_ok(), "old tokens still verify");
    assert!(rotated.verify(&fresh, now_s()).is_ok());
    assert!(verifier.verify(&fresh, now_s()).is_err(), "a stale key set lacks the new key");
    let (ok, out, _) = s.cli(&["keys", "list"]);
    assert!(ok && out.contains(&new_kid) && out.contains(&old_kid), "{out}");

    // the signing key stays; the old one goes, and its tokens with it
    let (ok, _, err) = s.cli(&["keys", "remove", &new_kid]);
    assert!(!ok && err.contains("409") && err.contains("rotate first"), "{err}");
    let (ok, _, err) = s.cli(&["keys", "remove", "no-such-key"]);
    assert!(!ok && err.contains("404"), "{err}");
    let (ok, out, err) = s.cli(&["keys", "remove", &old_kid, "--output", "json"]);
    assert!(ok, "{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap().as_array().unwrap().len(), 1);
    let (_, after) = published(&s).await;
    assert!(after.verify(&fresh, now_s()).is_ok());
    assert_eq!(
        after.verify(&good, now_s()).unwrap_err(),
        registry_token::TokenError::UnknownKey(old_kid.clone())
    );
    let (message, _) = refused_by_broker(&s, &runtime, &good, "INVALID_SIGNED_CONTEXT").await;
    assert!(message.contains("not in the registry's key set"), "{message}");
    // the key file changed with it, and stayed private
    let ring = KeyRing::parse(&std::fs::read_to_string(s.data.join("signing-keys.json")).unwrap())
        .unwrap();
    assert_eq!(ring.signing().kid(), new_kid);
    // only the admin changes keys
    let (ok, _, err) = s.cli_as(&runtime, &["keys", "rotate"]);
    assert!(!ok && err.contains("403"), "{err}");
}
