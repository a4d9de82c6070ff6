//! The one bounded cache of values worked out from stored definitions (decoded,
//! compiled, encoded), keyed by id and checked by version: a version's content never
//! changes and versions are never reused (docs/decisions.md entry 3), so a value whose
//! version matches is always right, whichever process wrote it.

/// The newest value of each id, at most `capacity` of them. When full, `quick_cache`
/// evicts the entry least worth keeping (S3-FIFO: one hit keeps an entry over those
/// never read again); an evicted value is worked out again on its next use.
pub struct VersionCache<V> {
    entries: Option<quick_cache::sync::Cache<String, (u64, V)>>,
}

impl<V: Clone> VersionCache<V> {
    /// An empty cache of at most `capacity` ids; `0` keeps nothing.
    pub fn new(capacity: usize) -> Self {
        Self { entries: (capacity > 0).then(|| quick_cache::sync::Cache::new(capacity)) }
    }

    /// The value of `id` at `version`, if it is the one kept.
    pub fn get(&self, id: &str, version: u64) -> Option<V> {
        let (kept, value) = self.entries.as_ref()?.get(id)?;
        (kept == version).then_some(value)
    }

    /// Keeps `value` as `id` at `version`, unless a newer version is kept; a value
    /// without a version (`0`: never stored) is never kept.
    pub fn put(&self, id: &str, version: u64, value: V) {
        let Some(entries) = &self.entries else { return };
        if version == 0 || entries.get(id).is_some_and(|(kept, _)| kept > version) {
            return;
        }
        entries.insert(id.to_owned(), (version, value));
    }

    /// Number of ids kept.
    pub fn len(&self) -> usize {
        self.entries.as_ref().map_or(0, quick_cache::sync::Cache::len)
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<V: Clone> std::fmt::Debug for VersionCache<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VersionCache").field("len", &self.len()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::VersionCache;

    #[test]
    fn keeps_the_newest_version_within_capacity() {
        let cache = VersionCache::new(2);
        cache.put("a", 1, "a1");
        assert_eq!(cache.get("a", 1), Some("a1"));
        assert_eq!(cache.get("a", 2), None);
        cache.put("a", 2, "a2");
        cache.put("a", 1, "a1 again");
        assert_eq!(cache.get("a", 2), Some("a2"));
        assert_eq!(cache.get("a", 1), None);
        cache.put("u", 0, "unversioned");
        assert_eq!(cache.get("u", 0), None);
        for id in ["b", "c", "d", "e"] {
            cache.put(id, 1, id);
        }
        assert!(cache.len() <= 2, "{}", cache.len());
        let off = VersionCache::new(0);
        off.put("a", 1, "a1");
        assert!(off.is_empty());
        assert_eq!(off.get("a", 1), None);
    }
}
