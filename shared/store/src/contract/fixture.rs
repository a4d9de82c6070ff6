//! What a backend hands the contract suite: an empty store and its keep-alive guard.

use std::sync::Arc;

use crate::Store;

/// A fresh, empty store for one check, plus anything that must outlive it (a temp
/// dir, a server process, a table to drop); the guard is dropped after the check.
pub struct Fixture {
    store: Arc<dyn Store>,
    _guard: Box<dyn Send>,
}

impl Fixture {
    /// Wraps `store`; `guard` (use `()` for none) is dropped after the check.
    pub fn new(store: Arc<dyn Store>, guard: impl Send + 'static) -> Self {
        Self { store, _guard: Box::new(guard) }
    }

    /// The store under test.
    pub fn store(&self) -> Arc<dyn Store> {
        Arc::clone(&self.store)
    }
}
