//! Files of an embedded deployment's data directory, readable by the server's user only.

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

/// Replaces `path` with `bytes` atomically (a `<name>.tmp` beside it, written with mode
/// 0600, synced, renamed over `path`): a reader sees the old file or the new one, and
/// only the server's user can read either. The error says which path failed.
pub fn write_private_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_owned();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut out = options.open(&tmp).map_err(named(&tmp))?;
    io::Write::write_all(&mut out, bytes).map_err(named(&tmp))?;
    out.sync_all().map_err(named(&tmp))?;
    drop(out);
    std::fs::rename(&tmp, path).map_err(named(path))
}

/// An error naming the path it happened at.
fn named(at: &Path) -> impl Fn(io::Error) -> io::Error + '_ {
    move |e| io::Error::new(e.kind(), format!("{}: {e}", at.display()))
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_private_file_is_replaced_whole_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secrets.json");
        std::fs::write(&path, b"old").unwrap();
        write_private_file(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let names: Vec<_> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["secrets.json"], "no temporary file left");
        let missing = dir.path().join("no/such/dir/x.json");
        let e = write_private_file(&missing, b"x").unwrap_err();
        assert!(e.to_string().contains("x.json.tmp"), "{e}");
    }
}
