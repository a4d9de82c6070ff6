#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The five benchmark conditions of `benches/access-cases.json` (copied from the shared bench set) all allow on its context, answered by their compiled form.

use registry_access::{
    AccessRule, Effect, Engine, PreparedContext, ReasonCode, RequestContext, RuleSet,
};

const CASES: &str = include_str!("../benches/access-cases.json");

#[test]
fn the_five_cases_allow_on_their_context() {
    let file: serde_json::Value = serde_json::from_str(CASES).unwrap();
    let ctx: RequestContext = serde_json::from_value(file["context"].clone()).unwrap();
    let prepared = PreparedContext::new(&ctx).unwrap();
    let cases = file["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 5);
    for case in cases {
        let condition = case["condition"].as_str().unwrap();
        let rules = [AccessRule::new(Effect::Allow, Some(condition))];
        let set = RuleSet::compile(&rules).unwrap();
        let d = set.evaluate(&prepared);
        assert_eq!(
            (d.effect, d.reason),
            (Effect::Allow, ReasonCode::RuleMatch),
            "{condition}: {d:?}"
        );
        assert!(d.errors.is_empty());
        // the compiled form answers each of them
        let (_, _, compiled) = set.explain_on(&prepared, None, Engine::Compiled);
        assert_eq!(compiled, 1, "{condition}");
    }
}
