//! The principal token's own costs (decision 83), on a context like the guard bench's:
//!
//! - `token/issue`: one token signed at resolution (`KeyRing::issue`: claims, RS256
//!   signature with ring, base64url).
//! - `token/verify-first`: the first verification of a token by a guard or the broker
//!   (`Verifier::verify`: header, RS256 signature, claims, `iss`/`aud`/`exp`); a guard
//!   then remembers it (`guard/check-warm`).
//!
//! `scripts/bench.sh` reports both (no goal: measured, docs/performance.md).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use registry_token::{DEFAULT_AUDIENCE, KeyRing, TokenRequest, Verifier};

const ISSUER: &str = "http://registry.bench";
const NOW: i64 = 1_795_608_000;
const CONTEXT: &str = r#"{"user":{"userId":"u-42","userType":"internal-user","roles":["agent","support"]},"account":{"accountId":"acct-7","type":"retailer"},"request":{"region":"us-east-1"}}"#;

fn bench(c: &mut Criterion) {
    let keys = KeyRing::generate(NOW).unwrap();
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
    c.bench_function("token/issue", |b| b.iter(|| keys.issue(black_box(&request)).unwrap()));
    let token = keys.issue(&request).unwrap();
    let verifier = Verifier::new(&keys.jwks(), ISSUER, DEFAULT_AUDIENCE).unwrap();
    c.bench_function("token/verify-first", |b| {
        b.iter(|| verifier.verify(black_box(&token), NOW + 1).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
