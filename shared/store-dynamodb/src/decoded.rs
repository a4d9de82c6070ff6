//! Decoded definitions by (kind, id, version), per store instance (clones share it).
//!
//! Reads still go to DynamoDB: the cache only skips the JSON decode of a `doc` attribute
//! this instance has decoded before. An entry is used only when the item just read has
//! the same kind, id and version *and* a byte-identical `doc`, so the cache is a
//! memo of a pure function (document text -> definition) and can never return anything
//! but what decoding the item would: not after another instance's write (new version),
//! not after a delete (a tombstone has no `doc` and never reaches the cache), not even
//! when version numbers restart on a recreated or restored table. Nothing is cached on
//! the write path: entries come only from items read back from the table.
//!
//! Bounded by entries and by document bytes, with two generations: new entries go to the
//! young one; when it reaches half of either bound it becomes the old one (the previous
//! old one is dropped). A hit in the old generation moves the entry back to the young
//! one, so hot definitions stay while cold ones age out in O(1) per operation.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use registry_core::{Definition, Kind};
use registry_store::StoreError;

use crate::item;

/// Default bound on cached definitions (all kinds, both generations).
pub const DEFAULT_CACHE_ENTRIES: usize = 4096;

/// Default bound on the document bytes held by the cache (both generations).
pub const DEFAULT_CACHE_BYTES: usize = 32 * 1024 * 1024;

/// How many stored documents a store decoded and how many it took from its cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeCounts {
    /// Documents parsed from JSON (cache misses, and every read when the cache is off).
    pub decoded: u64,
    /// Documents whose decoded definition came from the cache (same version and text).
    pub reused: u64,
}

type Key = (Kind, String, u64);

struct Entry {
    doc: Box<str>,
    definition: Arc<Definition>,
}

#[derive(Default)]
struct Generation {
    map: HashMap<Key, Entry>,
    bytes: usize,
}

impl Generation {
    fn insert(&mut self, key: Key, entry: Entry) {
        self.bytes += entry.doc.len();
        if let Some(old) = self.map.insert(key, entry) {
            self.bytes -= old.doc.len();
        }
    }

    fn remove(&mut self, key: &Key) -> Option<Entry> {
        let entry = self.map.remove(key)?;
        self.bytes -= entry.doc.len();
        Some(entry)
    }
}

#[derive(Default)]
struct Generations {
    young: Generation,
    old: Generation,
}

/// The cache of one store instance.
pub(crate) struct Decoded {
    generations: Mutex<Generations>,
    /// Per generation: half of each configured bound.
    max_entries: usize,
    max_bytes: usize,
    decoded: AtomicU64,
    reused: AtomicU64,
}

impl Default for Decoded {
    fn default() -> Self {
        Self::new(DEFAULT_CACHE_ENTRIES, DEFAULT_CACHE_BYTES)
    }
}

impl std::fmt::Debug for Decoded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoded")
            .field("max_entries", &(self.max_entries * 2))
            .field("max_bytes", &(self.max_bytes * 2))
            .field("counts", &self.counts())
            .finish_non_exhaustive()
    }
}

impl Decoded {
    /// A cache holding at most `entries` definitions and `bytes` of documents; a bound
    /// below 2 turns it off (every read decodes).
    pub(crate) fn new(entries: usize, bytes: usize) -> Self {
        Self {
            generations: Mutex::default(),
            max_entries: entries / 2,
            max_bytes: bytes / 2,
            decoded: AtomicU64::new(0),
            reused: AtomicU64::new(0),
        }
    }

    /// The definition stored as `doc` for `id` at `version`: from the cache when this
    /// exact document was decoded before, else decoded (and remembered).
    pub(crate) fn decode(
        &self,
        kind: Kind,
        id: &str,
        version: u64,
        doc: &str,
    ) -> Result<Definition, StoreError> {
        let enabled = self.max_entries > 0 && doc.len() <= self.max_bytes;
        let key = (kind, id.to_owned(), version);
        if enabled && let Some(hit) = self.lookup(&key, doc) {
            self.reused.fetch_add(1, Ordering::Relaxed);
            return Ok(Definition::clone(&hit));
        }
        let definition = item::decode_doc(doc)?;
        self.decoded.fetch_add(1, Ordering::Relaxed);
        if enabled {
            let entry = Entry { doc: doc.into(), definition: Arc::new(definition.clone()) };
            let mut generations = self.lock();
            self.make_room(&mut generations, doc.len());
            generations.young.insert(key, entry);
        }
        Ok(definition)
    }

    /// `doc` decoded, not looked up nor remembered (an item without id or version).
    pub(crate) fn decode_uncached(&self, doc: &str) -> Result<Definition, StoreError> {
        let definition = item::decode_doc(doc)?;
        self.decoded.fetch_add(1, Ordering::Relaxed);
        Ok(definition)
    }

    /// Documents decoded and reused so far.
    pub(crate) fn counts(&self) -> DecodeCounts {
        DecodeCounts {
            decoded: self.decoded.load(Ordering::Relaxed),
            reused: self.reused.load(Ordering::Relaxed),
        }
    }

    /// Sets both counts back to zero (the entries stay).
    pub(crate) fn reset_counts(&self) {
        self.decoded.store(0, Ordering::Relaxed);
        self.reused.store(0, Ordering::Relaxed);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Generations> {
        self.generations.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The cached definition of `key` if its document is exactly `doc`.
    fn lookup(&self, key: &Key, doc: &str) -> Option<Arc<Definition>> {
        let mut generations = self.lock();
        if let Some(entry) = generations.young.map.get(key) {
            return (*entry.doc == *doc).then(|| Arc::clone(&entry.definition));
        }
        if generations.old.map.get(key).is_some_and(|e| *e.doc == *doc) {
            let entry = generations.old.remove(key)?;
            let definition = Arc::clone(&entry.definition);
            self.make_room(&mut generations, entry.doc.len());
            generations.young.insert(key.clone(), entry);
            return Some(definition);
        }
        None
    }

    /// Retires the young generation when adding `bytes` more would exceed a bound.
    fn make_room(&self, generations: &mut Generations, bytes: usize) {
        let young = &generations.young;
        if young.map.len() >= self.max_entries || young.bytes + bytes > self.max_bytes {
            generations.old = std::mem::take(&mut generations.young);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    use registry_store::contract::sample::{tool, with_description};

    fn doc(id: &str, description: &str) -> String {
        item::encode_doc(&with_description(tool(id), description)).expect("encode")
    }

    #[test]
    fn same_version_and_text_is_reused_other_text_is_decoded() {
        let cache = Decoded::default();
        let a = doc("t", "first");
        let b = doc("t", "second");
        cache.decode(Kind::Tool, "t", 1, &a).unwrap();
        cache.decode(Kind::Tool, "t", 1, &a).unwrap();
        assert_eq!(cache.counts(), DecodeCounts { decoded: 1, reused: 1 });
        // Same key, different text (a recreated table): decoded, never the old entry.
        let got = cache.decode(Kind::Tool, "t", 1, &b).unwrap();
        assert_eq!(got, item::decode_doc(&b).unwrap());
        assert_eq!(cache.counts(), DecodeCounts { decoded: 2, reused: 1 });
        // Another version is another key.
        cache.decode(Kind::Tool, "t", 2, &b).unwrap();
        assert_eq!(cache.counts(), DecodeCounts { decoded: 3, reused: 1 });
    }

    #[test]
    fn bounded_by_entries_and_bytes() {
        let cache = Decoded::new(4, usize::MAX);
        let docs: Vec<String> = (0..10).map(|n| doc(&format!("t{n}"), "d")).collect();
        for (n, d) in docs.iter().enumerate() {
            cache.decode(Kind::Tool, &format!("t{n}"), 1, d).unwrap();
        }
        let g = cache.lock();
        assert!(g.young.map.len() + g.old.map.len() <= 4);
        drop(g);

        let one = docs[0].len();
        let cache = Decoded::new(100, 3 * one);
        for (n, d) in docs.iter().enumerate() {
            cache.decode(Kind::Tool, &format!("t{n}"), 1, d).unwrap();
        }
        let g = cache.lock();
        assert!(g.young.bytes + g.old.bytes <= 3 * one, "{} {}", g.young.bytes, g.old.bytes);
        assert_eq!(g.young.bytes, g.young.map.values().map(|e| e.doc.len()).sum::<usize>());
    }

    #[test]
    fn hot_entries_survive_rotation() {
        let cache = Decoded::new(4, usize::MAX);
        let hot = doc("hot", "d");
        cache.decode(Kind::Tool, "hot", 1, &hot).unwrap();
        for n in 0..20 {
            cache.decode(Kind::Tool, &format!("c{n}"), 1, &doc(&format!("c{n}"), "d")).unwrap();
            cache.decode(Kind::Tool, "hot", 1, &hot).unwrap();
        }
        assert_eq!(cache.counts().reused, 20);
    }

    #[test]
    fn zero_bound_turns_it_off() {
        let cache = Decoded::new(0, 0);
        let a = doc("t", "d");
        cache.decode(Kind::Tool, "t", 1, &a).unwrap();
        cache.decode(Kind::Tool, "t", 1, &a).unwrap();
        assert_eq!(cache.counts(), DecodeCounts { decoded: 2, reused: 0 });
    }
}
