#![cfg(feature = "aws")]
#![allow(clippy::unwrap_used, clippy::expect_used)]
//! One key ring across admin-API instances (decision 100), on the local AWS-API server's
//! Secrets Manager (moto): two instances, each with its own client, start together on
//! the secret as the template creates it (`{}`) and end on one ring; then they rotate
//! together, and every token either issued verifies at both. 20 trials. The instances
//! share nothing but the secret (in one test process: `PrincipalKeys` as the admin API
//! opens it, each with its own Secrets Manager client).

mod common;

use std::sync::Arc;

use registry_api::principal_keys::{KeyRing, PrincipalKeys, SecretsManagerKeyStore, TokenSettings};
use registry_store_dynamodb::local;
use registry_token::TokenRequest;

const CTX: &str = r#"{"user":{"userId":"u-1"}}"#;

async fn instance(endpoint: &str, secret: &str) -> PrincipalKeys {
    let config = registry_sdk_config::sdk_config(Some(endpoint.to_owned())).await;
    let store = SecretsManagerKeyStore::new(common::secrets_manager(&config), secret);
    PrincipalKeys::open(Arc::new(store), TokenSettings::new("https://registry.test")).await.unwrap()
}

fn issue(keys: &PrincipalKeys, session: &str) -> String {
    let settings = keys.settings();
    keys.ring()
        .issue(&TokenRequest {
            issuer: &settings.issuer,
            audience: &settings.audience,
            user_id: Some("u-1"),
            agent_id: "support",
            session_id: session,
            context_json: CTX,
            now: chrono::Utc::now().timestamp(),
            ttl_seconds: settings.ttl_seconds,
        })
        .unwrap()
}

async fn verifies(keys: &PrincipalKeys, token: &str) -> Result<(), String> {
    keys.refresh_for(token).await;
    let now = chrono::Utc::now().timestamp();
    keys.verifier().verify(token, now).map(|_| ()).map_err(|e| e.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn instances_started_and_rotating_together_share_one_ring_and_verify_every_token() {
    let endpoint = local::endpoint().unwrap().to_owned();
    let config = registry_sdk_config::sdk_config(Some(endpoint.clone())).await;
    let sm = common::secrets_manager(&config);
    for trial in 0..20 {
        // the secret as the template creates it: a placeholder, not a ring
        let name = format!("signing-keys-{}", uuid::Uuid::now_v7());
        sm.create_secret().name(&name).secret_string("{}").send().await.unwrap();

        let (a, b) = tokio::join!(instance(&endpoint, &name), instance(&endpoint, &name));
        let signing = |k: &PrincipalKeys| k.ring().signing().kid().to_owned();
        assert_eq!(signing(&a), signing(&b), "trial {trial}: started on different keys");
        let mut tokens = vec![issue(&a, "s-a0"), issue(&b, "s-b0")];

        let (ra, rb) = tokio::join!(a.rotate(), b.rotate());
        let (ra, rb) = (ra.unwrap(), rb.unwrap());
        let (ka, kb) = (ra.signing().kid().to_owned(), rb.signing().kid().to_owned());
        assert_ne!(ka, kb, "trial {trial}");
        tokens.push(issue(&a, "s-a1"));
        tokens.push(issue(&b, "s-b1"));

        // the stored ring keeps every key that signed
        let stored = sm.get_secret_value().secret_id(&name).version_stage("AWSCURRENT");
        let stored = stored.send().await.unwrap();
        let ring = KeyRing::parse(stored.secret_string().unwrap()).unwrap();
        let kids: Vec<&str> = ring.keys().iter().map(|k| k.key.kid()).collect();
        for kid in [&ka, &kb] {
            assert!(kids.contains(&kid.as_str()), "trial {trial}: {kid} lost from {kids:?}");
        }
        assert_eq!(kids.len(), 3, "trial {trial}: the first key and both new ones: {kids:?}");

        for (n, token) in tokens.iter().enumerate() {
            for (at, keys) in [("a", &a), ("b", &b)] {
                let verified = verifies(keys, token).await;
                assert!(verified.is_ok(), "trial {trial}: token {n} at {at}: {verified:?}");
            }
        }
        sm.delete_secret().secret_id(&name).force_delete_without_recovery(true).send().await.ok();
    }
}
