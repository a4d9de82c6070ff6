//! The live heads one reader connection has read, kept while the database is unchanged.
//! `PRAGMA data_version` on a connection changes whenever any other connection commits
//! (this process's writer or another process), so a point read that finds it unchanged
//! answers from memory: no statement per id, no row decode, no decoded-cache lock, and
//! no second parse of a remembered head's references.

use std::collections::HashMap;
use std::sync::Arc;

use registry_core::{Definition, Kind};
use rusqlite::Connection;

use crate::error::Db;
use registry_store::StoreError;

/// Entries kept per kind; beyond it the map starts over.
const CAPACITY: usize = 4096;

/// What one id's live head was (`None`: absent or deleted).
type Found = Option<Arc<Definition>>;

/// A remembered head, and its [`Definition::references`] once asked for.
struct Entry {
    found: Found,
    references: Option<Vec<String>>,
}

/// Heads read by one connection at one `data_version`.
#[derive(Default)]
pub(crate) struct Heads {
    data_version: Option<i64>,
    kinds: [HashMap<String, Entry>; 2],
}

impl Heads {
    /// Forgets every entry when a commit happened since they were read. Inside a read
    /// transaction this also starts its snapshot, so the reads that follow match it.
    pub(crate) fn sync(&mut self, conn: &Connection) -> Result<(), StoreError> {
        let version: i64 = conn
            .prepare_cached("PRAGMA data_version")
            .db()?
            .query_row([], |row| row.get(0))
            .db()?;
        if self.data_version != Some(version) {
            self.kinds.iter_mut().for_each(HashMap::clear);
            self.data_version = Some(version);
        }
        Ok(())
    }

    /// The head of `id` as read since the last change, if it was.
    pub(crate) fn get(&self, kind: Kind, id: &str) -> Option<Found> {
        self.kinds[index(kind)].get(id).map(|entry| entry.found.clone())
    }

    /// Remembers the head of `id`.
    pub(crate) fn put(&mut self, kind: Kind, id: &str, found: &Found) {
        let map = &mut self.kinds[index(kind)];
        if map.len() >= CAPACITY {
            map.clear();
        }
        map.insert(id.to_owned(), Entry { found: found.clone(), references: None });
    }

    /// The references of `head`, the remembered head of `id`: worked out once per state.
    pub(crate) fn references(&mut self, kind: Kind, id: &str, head: &Definition) -> Vec<String> {
        match self.kinds[index(kind)].get_mut(id) {
            Some(entry) => entry.references.get_or_insert_with(|| head.references()).clone(),
            None => head.references(),
        }
    }
}

fn index(kind: Kind) -> usize {
    match kind {
        Kind::Agent => 0,
        Kind::Tool => 1,
    }
}
