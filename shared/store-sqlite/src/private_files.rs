//! Files only the server's user may read: the data directory (0700) and the database
//! (0600), which holds write-only secrets. Modes are set when the server creates them;
//! existing files and directories keep theirs.

use std::io;
use std::path::Path;

pub use registry_store::create_private_dir;

/// Creates the empty file `path` with mode 0600 unless it exists. SQLite gives its
/// `-wal` and `-shm` files the mode of the database file.
pub(crate) fn create_private_file(path: &Path) -> io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn new_dirs_and_files_are_private_and_existing_ones_are_kept() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b");
        create_private_dir(&dir).unwrap();
        assert_eq!(mode(&root.path().join("a")), 0o700);
        assert_eq!(mode(&dir), 0o700);
        let file = dir.join("db");
        create_private_file(&file).unwrap();
        assert_eq!(mode(&file), 0o600);
        std::fs::write(&file, b"kept").unwrap();
        create_private_file(&file).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"kept");
    }
}
