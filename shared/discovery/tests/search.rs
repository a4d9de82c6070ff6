//! Search over 10,000 generated tools: each hand-written query finds its tool first.

#[path = "support/catalog.rs"]
mod support;

use registry_discovery::ToolIndex;
use registry_discovery::search::Field;

#[test]
fn each_intended_tool_is_first_for_its_query_among_ten_thousand() {
    let index = ToolIndex::build(support::catalog(10_000 - support::INTENDED.len()));
    assert_eq!(index.len(), 10_000);
    let mut missed = Vec::new();
    for (id, .., query) in support::INTENDED {
        let hits = index.search(query, 5);
        let first = hits.first().map(|h| h.tool.tool_id.as_str());
        if first != Some(id) {
            missed.push(format!(
                "{query:?}: wanted {id}, got {:?}",
                hits.iter().map(|h| &h.tool.tool_id).collect::<Vec<_>>()
            ));
        }
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

#[test]
fn a_hit_names_its_function_and_why() {
    let index = ToolIndex::build(support::catalog(200));
    let hits = index.search("rain forecast", 3);
    let first = hits.first().expect("a hit");
    assert_eq!(first.tool.tool_id, "weather-forecast@1.0.0");
    assert_eq!(first.function.as_deref(), Some("get_forecast"));
    assert!(
        first.matched.iter().any(|m| m.field == Field::FunctionDescription && m.terms == ["rain"])
    );
    assert!(first.matched.iter().any(|m| m.field == Field::Name && m.terms == ["forecast"]));
    // a tool appears once, however many of its documents match
    let ids: std::collections::BTreeSet<_> =
        index.search("customer", 100).into_iter().map(|h| h.tool.tool_id.clone()).collect();
    assert_eq!(ids.len(), index.search("customer", 100).len());
}

#[test]
fn a_query_of_stop_words_only_or_unknown_words_finds_nothing() {
    let index = ToolIndex::build(support::catalog(50));
    assert!(index.search("the of and", 10).is_empty());
    assert!(index.search("zzyzx", 10).is_empty());
    assert!(index.search("", 10).is_empty());
}
