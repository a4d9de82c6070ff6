//! A JWKS URL that never answers, attacked as a verifier meets it: every verification
//! fails closed, and calls that come while (or just after) one fetch hangs do not each
//! wait out a fetch of their own.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use registry_token::{KeyRing, KeySource, RemoteJwks, TokenError, TokenRequest};

const ISS: &str = "http://registry.test";
const AUD: &str = "agent-registry";
const NOW: i64 = 1_800_000_000;

/// A server that accepts connections, reads, and never answers; counts connections.
async fn hanging(connections: Arc<AtomicUsize>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            connections.fetch_add(1, Ordering::SeqCst);
            held.push(stream);
        }
    });
    format!("http://{addr}/.well-known/jwks.json")
}

#[tokio::test]
async fn a_jwks_url_that_never_answers_fails_closed_with_one_fetch_for_a_burst() {
    let ring = KeyRing::generate(NOW).unwrap();
    let token = ring
        .issue(&TokenRequest {
            issuer: ISS,
            audience: AUD,
            user_id: Some("u1"),
            agent_id: "support",
            session_id: "s-1",
            context_json: "{}",
            now: NOW,
            ttl_seconds: 3_600,
        })
        .unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let url = hanging(Arc::clone(&connections)).await;
    let source = Arc::new(KeySource::Url(RemoteJwks::new(url, ISS, AUD)));
    let calls: Vec<_> = (0..5)
        .map(|_| {
            let (source, token) = (Arc::clone(&source), token.clone());
            tokio::spawn(async move { source.verify(&token, NOW).await })
        })
        .collect();
    for call in calls {
        let refused = tokio::time::timeout(std::time::Duration::from_secs(60), call)
            .await
            .expect("a hanging JWKS URL holds a verification without bound")
            .unwrap();
        assert!(matches!(refused, Err(TokenError::KeySetUnavailable(_))), "{refused:?}");
    }
    // the calls that waited behind the hanging fetch were refused without one of their
    // own: one connection, not one per call
    assert_eq!(connections.load(Ordering::SeqCst), 1);
    // a call right after is refused without a new fetch too
    assert!(matches!(source.verify(&token, NOW).await, Err(TokenError::KeySetUnavailable(_))));
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}
