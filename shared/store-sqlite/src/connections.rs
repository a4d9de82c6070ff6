//! The connections of one database file: a single writer behind a mutex and a small
//! pool of readers (WAL lets readers run while a write is in progress).

use crate::error::Db;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};

use super::heads::Heads;
use super::private_files::{create_private_dir, create_private_file};
use super::schema;
use registry_store::StoreError;

/// How long a connection waits for a lock held by another process before giving up
/// with [`StoreError::Unavailable`].
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Idle reader connections kept for reuse.
const MAX_IDLE_READERS: usize = 4;

/// Writer and readers of one database file.
pub(crate) struct Connections {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Reader>>,
}

/// A read-only connection and the heads it has read.
pub(crate) struct Reader {
    /// The connection (`query_only`).
    pub(crate) conn: Connection,
    /// Heads read at its current `data_version`.
    pub(crate) heads: Heads,
}

/// Most of the database file mapped into memory per connection (address space only).
const MMAP_BYTES: i64 = 256 * 1024 * 1024;

fn configure(conn: &Connection) -> Result<(), StoreError> {
    conn.busy_timeout(BUSY_TIMEOUT).db()?;
    conn.pragma_update(None, "synchronous", "NORMAL").db()?;
    // Pages read through a memory map rather than one `pread` each: a tool's document
    // spills onto overflow pages, which a list page walks for every row.
    conn.pragma_update(None, "mmap_size", MMAP_BYTES).db()?;
    // One plan per statement whatever the bound values: without this guarantee SQLite
    // may plan with a parameter's value and then prepares the cached list statement
    // again on every run (a tenth of a list request's time, in the SQL parser).
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true).db()?;
    Ok(())
}

/// A poisoned lock only means another thread panicked while holding it; the
/// connection itself is still consistent (an unfinished transaction rolls back on drop).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Connections {
    /// Opens (creating if needed) the file, switches it to WAL and migrates the schema.
    pub(crate) fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            create_private_dir(parent).map_err(|e| {
                StoreError::Backend(format!("cannot create {}: {e}", parent.display()))
            })?;
        }
        create_private_file(path)
            .map_err(|e| StoreError::Backend(format!("cannot create {}: {e}", path.display())))?;
        let mut writer = Connection::open(path).db()?;
        configure(&writer)?;
        let mode: String =
            writer.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0)).db()?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Backend(format!("cannot switch to WAL (journal mode {mode})")));
        }
        schema::migrate(&mut writer)?;
        Ok(Self {
            path: path.to_owned(),
            writer: Mutex::new(writer),
            readers: Mutex::new(Vec::new()),
        })
    }

    /// Runs `f` with exclusive use of the writer connection.
    pub(crate) fn write<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut writer = lock(&self.writer);
        f(&mut writer)
    }

    /// Runs `f` with a reader (reused, or opened when none is idle).
    pub(crate) fn read<T>(
        &self,
        f: impl FnOnce(&mut Reader) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let idle = lock(&self.readers).pop();
        let mut reader = match idle {
            Some(reader) => reader,
            None => {
                let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
                let conn = Connection::open_with_flags(&self.path, flags).db()?;
                configure(&conn)?;
                conn.pragma_update(None, "query_only", true).db()?;
                Reader { conn, heads: Heads::default() }
            }
        };
        let result = f(&mut reader);
        let mut readers = lock(&self.readers);
        if readers.len() < MAX_IDLE_READERS {
            readers.push(reader);
        }
        result
    }
}
