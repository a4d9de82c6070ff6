//! The data directory of an embedded deployment, readable by the server's user only.

use std::io;
use std::path::Path;

/// Creates `dir` and its missing parents, new ones with mode 0700; existing ones keep
/// theirs. For directories that hold secrets (the SQLite file, hashed tokens).
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}
