//! The principal token's own costs (decision 83), on a context like the guard bench's:
//!
//! - `token/issue` (RS256), `token/issue-ES256`, `token/issue-EdDSA`: one token signed
//!   at resolution (`KeyRing::issue`: claims, signature with ring, base64url).
//! - `token/issue-reused`: a session resolved again (`IssuedTokens::issue` answering the
//!   token it kept: the fingerprint's SHA-256 and a cache hit; decision 112).
//! - `token/verify-first` (RS256), `token/verify-first-ES256`, `token/verify-first-EdDSA`:
//!   the first verification of a token by a guard or the broker (`Verifier::verify`:
//!   header, signature, claims, `iss`/`aud`/`exp`); a guard then remembers it
//!   (`guard/check-warm`).
//!
//! `scripts/bench.sh` reports both (no goal: measured, docs/performance.md).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use registry_token::{
    DEFAULT_AUDIENCE, IssuedTokens, KeyRing, SigningAlgorithm, TokenRequest, Verifier,
};

const ISSUER: &str = "http://registry.bench";
const NOW: i64 = 1_795_608_000;
const CONTEXT: &str = r#"{"user":{"userId":"u-42","userType":"internal-user","roles":["agent","support"]},"account":{"accountId":"acct-7","type":"retailer"},"request":{"region":"us-east-1"}}"#;

fn bench(c: &mut Criterion) {
    let request = TokenRequest {
        issuer: ISSUER,
        audience: DEFAULT_AUDIENCE,
        user_id: Some("u-42"),
        agent_id: "support-bot",
        session_id: "s-1",
        context_json: CONTEXT,
        now: NOW,
        ttl_seconds: 3_600,
    };
    for algorithm in [SigningAlgorithm::RS256, SigningAlgorithm::ES256, SigningAlgorithm::EdDSA] {
        // RS256 keeps the names the figures were first taken under
        let suffix = match algorithm {
            SigningAlgorithm::RS256 => String::new(),
            other => format!("-{other}"),
        };
        let keys = KeyRing::generate_for(algorithm, NOW).unwrap();
        c.bench_function(&format!("token/issue{suffix}"), |b| {
            b.iter(|| keys.issue(black_box(&request)).unwrap())
        });
        let token = keys.issue(&request).unwrap();
        let verifier = Verifier::new(&keys.jwks(), ISSUER, DEFAULT_AUDIENCE).unwrap();
        c.bench_function(&format!("token/verify-first{suffix}"), |b| {
            b.iter(|| verifier.verify(black_box(&token), NOW + 1).unwrap())
        });
        if algorithm == SigningAlgorithm::RS256 {
            let issued = IssuedTokens::default();
            c.bench_function("token/issue-reused", |b| {
                b.iter(|| issued.issue(&keys, black_box(&request), b"grant").unwrap())
            });
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
