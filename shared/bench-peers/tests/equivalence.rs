//! Every engine of the peer bench gives the same decision on every request of every
//! case (`cases.json`), prepared and from JSON, and that decision is the one the case
//! states: the bench compares equivalent policies. Decisions only, no timing.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use registry_bench_peers::{
    Case, Cedar, Decision, Kind, Peer, PlainCel, Registry, RegistryRules, Rego, cases,
};

fn decisions<P: Peer>(case: &Case) -> Vec<String> {
    let mut peer = P::new(case).unwrap_or_else(|e| panic!("{} on {}: {e}", P::NAME, case.name));
    let mut wrong = Vec::new();
    for v in &case.variants {
        let prepared = peer.prepare(&v.request).map(|r| peer.decide(&r));
        let from_json = peer.decide_json(&v.request);
        for (path, got) in [("prepared", prepared), ("json", from_json)] {
            if got != Ok(v.expected) {
                wrong.push(format!(
                    "{} {path} on {} ({}): {got:?}, expected {:#b}",
                    P::NAME,
                    case.name,
                    v.note,
                    v.expected
                ));
            }
        }
    }
    wrong
}

#[test]
fn every_engine_decides_every_request_as_the_case_says() {
    let cases = cases().unwrap();
    let mut wrong = Vec::new();
    for case in &cases {
        wrong.extend(decisions::<Registry>(case));
        wrong.extend(decisions::<PlainCel>(case));
        wrong.extend(decisions::<Cedar>(case));
        wrong.extend(decisions::<Rego>(case));
        if let Kind::Resolution { .. } = case.kind {
            wrong.extend(decisions::<RegistryRules>(case));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_cases_are_the_seven_and_each_is_decided_both_ways() {
    let cases = cases().unwrap();
    let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "type+tier",
            "role-in-list",
            "entity-allowlist",
            "startsWith+size",
            "has+exists",
            "refund",
            "resolution"
        ]
    );
    for case in &cases {
        let expected: Vec<Decision> = case.variants.iter().map(|v| v.expected).collect();
        // the benchmarked request is allowed; some request is denied outright
        assert_eq!(expected[0], case.all_allowed(), "{}", case.name);
        assert!(expected.contains(&0), "{}: no request is denied", case.name);
        assert_eq!(case.variants[0].request, case.request, "{}", case.name);
    }
    let resolution = cases.iter().find(|c| c.name == "resolution").unwrap();
    assert_eq!(resolution.all_allowed().count_ones(), 10);
}
