//! Per-definition write serialisation inside one server process.
//!
//! Writes to the same definition queue behind one async mutex, so an unconditional PUT
//! or an `If-Match: *` write never loses a read-then-write race to another request of
//! this process. Writers in other processes (several servers on one DynamoDB table)
//! are still possible; the handlers retry a bounded number of times for those.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use registry_core::Kind;
use tokio::sync::OwnedMutexGuard;

/// Entries kept before dead ones are swept.
const SWEEP_AT: usize = 1024;

/// The lock of one definition, held while it is written.
type Slot = Weak<tokio::sync::Mutex<()>>;

/// One async mutex per `(kind, id)` being written, dropped when unused.
#[derive(Debug, Default)]
pub struct WriteLocks {
    locks: Mutex<HashMap<(Kind, String), Slot>>,
}

impl WriteLocks {
    /// Waits for exclusive write access to `(kind, id)`; released when dropped.
    pub async fn lock(&self, kind: Kind, id: &str) -> OwnedMutexGuard<()> {
        let mutex = {
            // A poisoned map only means another thread panicked mid-insert: keep going.
            let mut locks = self.locks.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if locks.len() >= SWEEP_AT {
                locks.retain(|_, weak| weak.strong_count() > 0);
            }
            let key = (kind, id.to_owned());
            match locks.get(&key).and_then(Weak::upgrade) {
                Some(mutex) => mutex,
                None => {
                    let mutex = Arc::new(tokio::sync::Mutex::new(()));
                    locks.insert(key, Arc::downgrade(&mutex));
                    mutex
                }
            }
        };
        mutex.lock_owned().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_writer_per_definition_at_a_time() {
        let locks = WriteLocks::default();
        let held = locks.lock(Kind::Agent, "a").await;
        // Another definition is independent.
        let _other = locks.lock(Kind::Tool, "a").await;
        let waiting = tokio::time::timeout(
            std::time::Duration::from_millis(20),
            locks.lock(Kind::Agent, "a"),
        );
        assert!(waiting.await.is_err(), "a second writer got in while the first held the lock");
        drop(held);
        let _again = locks.lock(Kind::Agent, "a").await;
    }
}
