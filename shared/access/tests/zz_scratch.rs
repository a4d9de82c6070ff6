#![allow(clippy::unwrap_used, clippy::expect_used)]
use registry_access::*;
use serde_json::json;
fn go(i: usize, kb: usize) {
    let chain = vec!["customData.x==1"; 100].join("||");
    let long_sum = format!("{} == 46", vec!["1"; 46].join(" + "));
    let nested =
        format!("{}customData.x == 1{}", "(customData.x == 1 && ".repeat(12), ")".repeat(12));
    let lists = format!("size({}1{}) == 1", "[".repeat(11), "]".repeat(11));
    let mixed = format!("{} == 21 && {}", vec!["1"; 21].join(" + "), nested);
    let condition = [chain, long_sum, nested, lists, mixed][i].clone();
    let set = RuleSet::compile(&[AccessRule { condition: Some(condition), effect: Effect::Allow, order: None, description: None, unknown: Default::default() }]).unwrap();
    let d = std::thread::Builder::new().stack_size(kb * 1024).spawn(move || {
        let ctx: RequestContext = serde_json::from_value(json!({"customData": {"x": 1}})).unwrap();
        set.evaluate(&PreparedContext::new(&ctx).unwrap())
    }).unwrap().join().unwrap();
    assert!(d.is_allowed());
}
#[test]
fn scratch() {
    let i: usize = std::env::var("CASE").unwrap().parse().unwrap();
    let kb: usize = std::env::var("KB").unwrap().parse().unwrap();
    go(i, kb);
}
