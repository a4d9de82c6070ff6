//! Counter records (SPEC section 19): versions, expiry, all-or-none writes. The
//! admission of calls on them is `registry_policy::admit`, checked against each backend
//! by that crate's tests (`tests/admit.rs`).

use std::sync::Arc;

use serde_json::json;

use crate::{Counter, Store, StoreError};

const NOW: i64 = 1_800_000_000;

fn counter(key: &str, version: u64, value: serde_json::Value, expires_at: i64) -> Counter {
    Counter { key: key.into(), version, value, expires_at }
}

/// A counter is written only on the version before it; it reads back as written.
pub async fn counters_are_written_on_the_version_read(store: Arc<dyn Store>) {
    let keys = ["session#a#s1".to_string()];
    assert_eq!(store.get_counters(&keys, NOW).await.expect("get"), vec![None]);
    let first = counter("session#a#s1", 1, json!({"calls": 1}), NOW + 600);
    store.put_counters(std::slice::from_ref(&first), NOW).await.expect("create");
    assert_eq!(store.get_counters(&keys, NOW).await.expect("get"), vec![Some(first.clone())]);
    let again = store.put_counters(std::slice::from_ref(&first), NOW).await;
    assert!(matches!(again, Err(StoreError::VersionMismatch { .. })), "{again:?}");
    let second = counter("session#a#s1", 2, json!({"calls": 2}), NOW + 600);
    store.put_counters(std::slice::from_ref(&second), NOW).await.expect("update");
    let stale = counter("session#a#s1", 2, json!({"calls": 9}), NOW + 600);
    assert!(store.put_counters(&[stale], NOW).await.is_err(), "a stale write is refused");
    let read = store.get_counters(&keys, NOW).await.expect("get");
    assert_eq!(read[0].as_ref().map(|c| c.value.clone()), Some(json!({"calls": 2})));
}

/// An expired counter reads as absent and is written again from version 1.
pub async fn expired_counters_read_as_absent(store: Arc<dyn Store>) {
    let keys = ["rate#t#principal#u".to_string()];
    let c = counter("rate#t#principal#u", 1, json!({"count": 3}), NOW + 10);
    store.put_counters(&[c], NOW).await.expect("create");
    assert!(store.get_counters(&keys, NOW + 9).await.expect("get")[0].is_some());
    assert_eq!(store.get_counters(&keys, NOW + 10).await.expect("get"), vec![None]);
    let fresh = counter("rate#t#principal#u", 1, json!({"count": 1}), NOW + 80);
    store.put_counters(&[fresh], NOW + 20).await.expect("expired counts as absent");
}

/// Several counters are written all or none.
pub async fn counters_are_written_all_or_none(store: Arc<dyn Store>) {
    store.put_counters(&[counter("b", 1, json!(1), NOW + 60)], NOW).await.expect("create b");
    let both = [counter("a", 1, json!(1), NOW + 60), counter("b", 1, json!(2), NOW + 60)];
    let result = store.put_counters(&both, NOW).await;
    assert!(matches!(result, Err(StoreError::VersionMismatch { .. })), "{result:?}");
    let read = store.get_counters(&["a".to_string(), "b".to_string()], NOW).await.expect("get");
    assert_eq!(read[0], None, "nothing of a refused write is kept");
    assert_eq!(read[1].as_ref().map(|c| c.value.clone()), Some(json!(1)));
}
