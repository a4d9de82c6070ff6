//! `serve`'s key store: one file in its data directory, mode 0600.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{KeyStore, KeysError, Stored, Written};

/// File name of the key ring inside `serve`'s data directory.
pub const KEY_FILE: &str = "signing-keys.json";

/// The key ring in a file (written whole, replaced through a temporary file, 0600). Its
/// version is its text: a conditional write compares the file with what was read, under
/// a lock held by this process (one `serve` per data directory).
#[derive(Debug, Clone)]
pub struct FileKeyStore {
    path: PathBuf,
    writing: std::sync::Arc<tokio::sync::Mutex<()>>,
}

impl FileKeyStore {
    /// The key file of the data directory `dir`.
    pub fn in_dir(dir: &Path) -> Self {
        Self { path: dir.join(KEY_FILE), writing: std::sync::Arc::default() }
    }

    fn read(&self) -> Result<Option<String>, KeysError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(failed(&self.path, &e)),
        }
    }

    fn write(&self, text: &str) -> io::Result<()> {
        let tmp = self.path.with_extension("json.tmp");
        let _ = std::fs::remove_file(&tmp);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, &self.path)
    }
}

fn failed(path: &Path, e: &io::Error) -> KeysError {
    KeysError::Store(format!("{}: {e}", path.display()))
}

#[async_trait::async_trait]
impl KeyStore for FileKeyStore {
    async fn load(&self) -> Result<Stored, KeysError> {
        let text = self.read()?;
        Ok(Stored { version: text.clone(), text })
    }

    async fn replace(&self, text: &str, read: Option<&str>) -> Result<Written, KeysError> {
        let _one = self.writing.lock().await;
        if self.read()?.as_deref() != read {
            return Ok(Written::Conflict);
        }
        self.write(text).map_err(|e| failed(&self.path, &e))?;
        Ok(Written::Done)
    }
}
