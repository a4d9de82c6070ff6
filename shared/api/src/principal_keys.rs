//! The keys that sign principal contexts (SPEC section 16): from the environment
//! (`REGISTRY_CONTEXT_KEYS`, the text form of a key ring), else, for `serve`, the key
//! file in the data directory, created with a new random key (mode 0600) on first start.

use std::io::{self, Write};
use std::path::Path;

use rand::RngCore;
use registry_access::signed::SigningKey;
pub use registry_access::signed::{DEFAULT_TTL_SECONDS, KeyRing};

/// The environment variable holding a key ring (`keyId:base64secret` per line or
/// comma, the signing key first).
pub const KEYS_ENV: &str = "REGISTRY_CONTEXT_KEYS";

/// File name of the key ring inside `serve`'s data directory.
pub const KEY_FILE: &str = "context-keys";

/// The key ring of [`KEYS_ENV`], when set (an invalid value is an error, never ignored).
pub fn from_env() -> io::Result<Option<KeyRing>> {
    match std::env::var(KEYS_ENV) {
        Ok(text) if !text.trim().is_empty() => KeyRing::parse(&text)
            .map(Some)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{KEYS_ENV}: {e}"))),
        _ => Ok(None),
    }
}

/// The key ring of [`KEYS_ENV`], else of the key file in `dir`, created with a new
/// random key on first start.
pub fn load_or_create(dir: &Path) -> io::Result<KeyRing> {
    if let Some(ring) = from_env()? {
        return Ok(ring);
    }
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
