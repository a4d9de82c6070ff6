//! Decoded definitions by (kind, id, version). A version's content never changes and
//! version numbers are never reused (deleting keeps the history, recreating continues
//! it), so an entry is right for as long as it lives, whichever process wrote the
//! database: a read still asks SQLite for the current version and only skips the
//! JSON decode of a document it has decoded before.

use std::sync::Arc;

use registry_core::{Definition, Kind, VersionCache};

/// Entries kept per kind; when full, the entry least worth keeping makes room (hot
/// definitions stay decoded).
const CAPACITY: usize = 4096;

/// The newest decoded version of each id, per kind, shared with the readers.
pub(crate) struct Decoded {
    kinds: [VersionCache<Arc<Definition>>; 2],
}

impl Default for Decoded {
    fn default() -> Self {
        Self { kinds: [VersionCache::new(CAPACITY), VersionCache::new(CAPACITY)] }
    }
}

impl Decoded {
    fn slot(&self, kind: Kind) -> &VersionCache<Arc<Definition>> {
        match kind {
            Kind::Agent => &self.kinds[0],
            Kind::Tool => &self.kinds[1],
        }
    }

    /// `id` at `version`, when decoded before (shared, not copied).
    pub(crate) fn get(&self, kind: Kind, id: &str, version: u64) -> Option<Arc<Definition>> {
        self.slot(kind).get(id, version)
    }

    /// Remembers `definition` as `id` at `version`.
    pub(crate) fn put(&self, kind: Kind, id: &str, version: u64, definition: &Arc<Definition>) {
        self.slot(kind).put(id, version, Arc::clone(definition));
    }
}
