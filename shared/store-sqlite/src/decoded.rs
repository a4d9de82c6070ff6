//! Decoded definitions by (kind, id, version). A version's content never changes and
//! version numbers are never reused (deleting keeps the history, recreating continues
//! it), so an entry is right for as long as it lives, whichever process wrote the
//! database: a read still asks SQLite for the current version and only skips the
//! JSON decode of a document it has decoded before.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use registry_core::{Definition, Kind};

/// Entries kept per kind; beyond it the cache starts over (hot definitions return
/// after one decode each).
const CAPACITY: usize = 4096;

/// The newest decoded version of each id, per kind.
#[derive(Default)]
pub(crate) struct Decoded {
    kinds: [Mutex<HashMap<String, (u64, Definition)>>; 2],
}

impl Decoded {
    fn slot(&self, kind: Kind) -> &Mutex<HashMap<String, (u64, Definition)>> {
        match kind {
            Kind::Agent => &self.kinds[0],
            Kind::Tool => &self.kinds[1],
        }
    }

    /// A copy of `id` at `version`, when decoded before.
    pub(crate) fn get(&self, kind: Kind, id: &str, version: u64) -> Option<Definition> {
        let map = self.slot(kind).lock().unwrap_or_else(PoisonError::into_inner);
        map.get(id).filter(|(v, _)| *v == version).map(|(_, d)| d.clone())
    }

    /// Remembers `definition` as `id` at `version`.
    pub(crate) fn put(&self, kind: Kind, id: &str, version: u64, definition: &Definition) {
        let mut map = self.slot(kind).lock().unwrap_or_else(PoisonError::into_inner);
        if map.len() >= CAPACITY && !map.contains_key(id) {
            map.clear();
        }
        map.insert(id.to_owned(), (version, definition.clone()));
    }
}
