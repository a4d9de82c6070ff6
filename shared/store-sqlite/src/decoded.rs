//! Decoded definitions by (kind, id, version). A version's content never changes and
//! version numbers are never reused (deleting keeps the history, recreating continues
//! it), so an entry is right for as long as it lives, whichever process wrote the
//! database: a read still asks SQLite for the current version and only skips the
//! JSON decode of a document it has decoded before.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use registry_core::{Definition, Kind};

/// Entries kept per kind; beyond it the cache starts over (hot definitions return
/// after one decode each).
const CAPACITY: usize = 4096;

type Entries = Mutex<HashMap<String, (u64, Arc<Definition>)>>;

/// The newest decoded version of each id, per kind, shared with the readers.
#[derive(Default)]
pub(crate) struct Decoded {
    kinds: [Entries; 2],
}

impl Decoded {
    fn slot(&self, kind: Kind) -> &Entries {
        match kind {
            Kind::Agent => &self.kinds[0],
            Kind::Tool => &self.kinds[1],
        }
    }

    /// `id` at `version`, when decoded before (shared, not copied).
    pub(crate) fn get(&self, kind: Kind, id: &str, version: u64) -> Option<Arc<Definition>> {
        let map = self.slot(kind).lock().unwrap_or_else(PoisonError::into_inner);
        map.get(id).filter(|(v, _)| *v == version).map(|(_, d)| Arc::clone(d))
    }

    /// Remembers `definition` as `id` at `version`.
    pub(crate) fn put(&self, kind: Kind, id: &str, version: u64, definition: &Arc<Definition>) {
        let mut map = self.slot(kind).lock().unwrap_or_else(PoisonError::into_inner);
        if map.len() >= CAPACITY && !map.contains_key(id) {
            map.clear();
        }
        match map.get_mut(id) {
            Some(entry) => *entry = (version, Arc::clone(definition)),
            None => {
                map.insert(id.to_owned(), (version, Arc::clone(definition)));
            }
        }
    }
}
