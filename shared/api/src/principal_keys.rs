//! The keys that sign principal contexts (SPEC section 16): from the configuration
//! (`REGISTRY_CONTEXT_KEYS`, the text form of a key ring), else, for `serve`, the key
//! file in the data directory, created with a new random key (mode 0600) on first start.

use std::io::{self, Write};
use std::path::Path;

use rand::RngCore;
use registry_access::signed::SigningKey;
pub use registry_access::signed::{DEFAULT_TTL_SECONDS, KeyRing};

/// File name of the key ring inside `serve`'s data directory.
pub const KEY_FILE: &str = "context-keys";

/// The key ring of the key file in `dir`, created with a new random key on first start.
pub fn load_or_create(dir: &Path) -> io::Result<KeyRing> {
    let path = dir.join(KEY_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => KeyRing::parse(&text).map_err(|e| {
            io::Error::new(io::ErrorKind::InvalidData, format!("{}: {e}", path.display()))
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let mut secret = vec![0u8; 32];
            rand::rng().fill_bytes(&mut secret);
            let id = format!("k{}", chrono::Utc::now().format("%Y%m%d%H%M%S"));
            let ring = SigningKey::new(id, secret)
                .map(|key| KeyRing::new(vec![key]))
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            let mut file = options.open(&path)?;
            writeln!(file, "{}", ring.to_text())?;
            Ok(ring)
        }
        Err(e) => Err(e),
    }
}
