//! Compare-and-swap under contention.

use std::sync::Arc;

use registry_core::Kind;

use super::sample::{description, tool, with_description};
use crate::{Expected, Store, StoreError};

/// 32 concurrent writes expecting the same version: exactly one wins, the others get
/// [`StoreError::VersionMismatch`], and the stored record holds the winner's change.
pub async fn concurrent_puts_have_one_winner(store: Arc<dyn Store>) {
    store.put(tool("t1"), Expected::Absent).await.expect("create");
    let barrier = Arc::new(tokio::sync::Barrier::new(32));
    let mut tasks = Vec::new();
    for n in 0..32 {
        let store = Arc::clone(&store);
        let barrier = Arc::clone(&barrier);
        tasks.push(tokio::spawn(async move {
            let change = format!("writer {n}");
            barrier.wait().await;
            let result =
                store.put(with_description(tool("t1"), &change), Expected::Version(1)).await;
            (change, result)
        }));
    }
    let mut winners = Vec::new();
    let mut mismatches = 0;
    for task in tasks {
        let (change, result) = task.await.expect("task");
        match result {
            Ok(stored) => winners.push((change, stored)),
            Err(StoreError::VersionMismatch { expected: 1, current }) => {
                assert_ne!(current, Some(1), "a loser saw the version it expected");
                mismatches += 1;
            }
            Err(other) => panic!("unexpected error {other:?}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one write wins");
    assert_eq!(mismatches, 31);
    let (change, stored) = &winners[0];
    assert_eq!(stored.version(), 2);
    let head = store.get(Kind::Tool, "t1").await.expect("get").expect("exists");
    assert_eq!(description(&head), change);
    assert_eq!(&head, stored);
    let history =
        store.versions(Kind::Tool, "t1", &crate::ListQuery::default()).await.expect("history");
    assert_eq!(history.items.len(), 2, "losers left no snapshots");
}
