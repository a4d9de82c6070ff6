//! The `serve` vault: secrets encrypted (ChaCha20-Poly1305) in one file of the data
//! directory, under a key generated on first start in another.
//!
//! `secrets.key` holds the keys by id (the last one encrypts; older ones still decrypt
//! what they encrypted, so a key can be rotated by adding one); `secrets.json` holds one
//! entry per kept version: tool id, version, key id, nonce and ciphertext, the tool id
//! and version bound in as associated data. Both files are 0600 and replaced whole on
//! every change (temp file, fsync, rename), so a removed value is in neither file.
//!
//! A running `serve` holds an exclusive advisory lock on `serve.lock` in the data
//! directory ([`DataDirLock`]) for its lifetime; [`FileVault::rotate_key`] takes the
//! same lock, so it refuses to run beside a server (whose keys, read at start, would no
//! longer decrypt what the rotation re-encrypted, and whose next write would put back
//! entries the rotation did not see).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use rand::RngCore;
use registry_core::Secret;
use serde::{Deserialize, Serialize};

use super::{SecretHandle, SecretVault, VaultError};

/// File name of the keys in the data directory.
pub const KEY_FILE_NAME: &str = "secrets.key";
/// File name of the encrypted secrets in the data directory.
pub const SECRETS_FILE_NAME: &str = "secrets.json";
/// File name of the lock a process using the data directory holds.
pub const LOCK_FILE_NAME: &str = "serve.lock";

/// An exclusive advisory lock on a data directory (`serve.lock`, `flock`/`LockFileEx`),
/// held by `serve` for its lifetime and by a key rotation while it runs. The operating
/// system releases it when the holder drops it or exits, however it exits.
#[derive(Debug)]
pub struct DataDirLock {
    _file: std::fs::File,
}

impl DataDirLock {
    /// Takes the lock of `data_dir` without waiting: [`VaultError::InUse`] when another
    /// process holds it.
    pub fn acquire(data_dir: &Path) -> Result<Self, VaultError> {
        registry_store::create_private_dir(data_dir).map_err(io(data_dir))?;
        let path = data_dir.join(LOCK_FILE_NAME);
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&path).map_err(io(&path))?;
        match file.try_lock() {
            Ok(()) => Ok(Self { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => Err(VaultError::InUse(format!(
                "in use by a running `agent-registry serve` (it holds {}); stop it first",
                path.display()
            ))),
            Err(std::fs::TryLockError::Error(e)) => Err(io(&path)(e)),
        }
    }
}

/// One key of the key file.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct KeyEntry {
    /// Key id, recorded with everything it encrypts.
    id: String,
    /// The 32-byte key, base64.
    key: String,
}

/// The key file: `{"keys": [{"id", "key"}]}`, the last key current.
#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyFile {
    keys: Vec<KeyEntry>,
}

/// One kept version of one tool's secret.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Entry {
    tool: String,
    version: String,
    key_id: String,
    nonce: String,
    ciphertext: String,
}

/// The secrets file: `{"entries": [...]}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SecretsFile {
    entries: Vec<Entry>,
}

/// Secrets encrypted in the data directory.
pub struct FileVault {
    dir: PathBuf,
    keys: Vec<(String, ChaCha20Poly1305)>,
    /// Serialises every read-modify-write of the secrets file.
    lock: Mutex<()>,
}

impl std::fmt::Debug for FileVault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileVault").field("dir", &self.dir).finish_non_exhaustive()
    }
}

impl FileVault {
    /// Opens the vault of `data_dir`, generating its key on first start.
    pub fn open(data_dir: &Path) -> Result<Self, VaultError> {
        registry_store::create_private_dir(data_dir).map_err(io(data_dir))?;
        let key_path = data_dir.join(KEY_FILE_NAME);
        let file: KeyFile = match std::fs::read(&key_path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| VaultError::Damaged(format!("{}: {e}", key_path.display())))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut key = [0u8; 32];
                rand::rng().fill_bytes(&mut key);
                let file = KeyFile {
                    keys: vec![KeyEntry {
                        id: uuid::Uuid::now_v7().to_string(),
                        key: STANDARD.encode(key),
                    }],
                };
                write_private(&key_path, &serde_json::to_vec_pretty(&file).unwrap_or_default())?;
                file
            }
            Err(e) => return Err(io(&key_path)(e)),
        };
        let keys =
            file.keys
                .iter()
                .map(|k| {
                    let bytes = STANDARD.decode(&k.key).ok().filter(|b| b.len() == 32).ok_or_else(
                        || VaultError::Damaged(format!("key `{}` is not 32 bytes of base64", k.id)),
                    )?;
                    Ok((k.id.clone(), ChaCha20Poly1305::new(Key::from_slice(&bytes))))
                })
                .collect::<Result<Vec<_>, VaultError>>()?;
        if keys.is_empty() {
            return Err(VaultError::Damaged(format!("{} holds no key", key_path.display())));
        }
        Ok(Self { dir: data_dir.to_path_buf(), keys, lock: Mutex::new(()) })
    }

    /// The id of the key new secrets are encrypted with.
    pub fn current_key_id(&self) -> &str {
        self.keys.last().map_or("", |(id, _)| id.as_str())
    }

    fn path(&self) -> PathBuf {
        self.dir.join(SECRETS_FILE_NAME)
    }

    fn read(&self) -> Result<SecretsFile, VaultError> {
        let path = self.path();
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| VaultError::Damaged(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(SecretsFile::default()),
            Err(e) => Err(io(&path)(e)),
        }
    }

    fn write(&self, file: &SecretsFile) -> Result<(), VaultError> {
        let json = serde_json::to_vec_pretty(file)
            .map_err(|e| VaultError::Damaged(format!("secrets file not encodable: {e}")))?;
        write_private(&self.path(), &json)
    }

    fn cipher(&self, key_id: &str) -> Option<&ChaCha20Poly1305> {
        self.keys.iter().find(|(id, _)| id == key_id).map(|(_, c)| c)
    }

    /// `value` encrypted under the current key as the entry of `tool_id`'s `version`.
    fn seal(&self, tool_id: &str, version: &str, value: &str) -> Result<Entry, VaultError> {
        let (key_id, cipher) =
            self.keys.last().ok_or_else(|| VaultError::Damaged("no key".into()))?;
        let mut nonce = [0u8; 12];
        rand::rng().fill_bytes(&mut nonce);
        let aad = associated(tool_id, version);
        let ciphertext = cipher
            .encrypt(Nonce::from_slice(&nonce), Payload { msg: value.as_bytes(), aad: &aad })
            .map_err(|_| VaultError::Damaged("encryption failed".into()))?;
        Ok(Entry {
            tool: tool_id.to_owned(),
            version: version.to_owned(),
            key_id: key_id.clone(),
            nonce: STANDARD.encode(nonce),
            ciphertext: STANDARD.encode(ciphertext),
        })
    }

    /// The value of `entry`, decrypted with the key it names.
    fn open_entry(&self, entry: &Entry) -> Result<Secret, VaultError> {
        let cipher = self.cipher(&entry.key_id).ok_or_else(|| {
            VaultError::Damaged(format!("no key `{}` in {KEY_FILE_NAME}", entry.key_id))
        })?;
        let damaged =
            || VaultError::Damaged(format!("secret of `{}` does not decrypt", entry.tool));
        let nonce =
            STANDARD.decode(&entry.nonce).ok().filter(|n| n.len() == 12).ok_or_else(damaged)?;
        let ciphertext = STANDARD.decode(&entry.ciphertext).map_err(|_| damaged())?;
        let aad = associated(&entry.tool, &entry.version);
        let plain = cipher
            .decrypt(Nonce::from_slice(&nonce), Payload { msg: &ciphertext, aad: &aad })
            .map_err(|_| damaged())?;
        String::from_utf8(plain).map(Secret::new).map_err(|_| damaged())
    }

    /// Rotates the key of `data_dir`'s vault: a new key is generated, every kept secret
    /// is encrypted again under it, and the old keys are dropped, so they can read
    /// nothing any more. Returns the new key id. Refused with [`VaultError::InUse`]
    /// while a `serve` holds the data directory ([`DataDirLock`]): a running server
    /// keeps the keys it read at start.
    pub fn rotate_key(data_dir: &Path) -> Result<String, VaultError> {
        let _held = DataDirLock::acquire(data_dir)?;
        let old = Self::open(data_dir)?;
        let entries = old.read()?.entries;
        let plain = entries
            .iter()
            .map(|e| old.open_entry(e).map(|s| (e.tool.clone(), e.version.clone(), s)))
            .collect::<Result<Vec<_>, _>>()?;
        let id = uuid::Uuid::now_v7().to_string();
        let mut key = [0u8; 32];
        rand::rng().fill_bytes(&mut key);
        let new = Self {
            dir: data_dir.to_path_buf(),
            keys: vec![(id.clone(), ChaCha20Poly1305::new(Key::from_slice(&key)))],
            lock: Mutex::new(()),
        };
        let entries = plain
            .iter()
            .map(|(tool, version, secret)| new.seal(tool, version, secret.expose()))
            .collect::<Result<Vec<_>, _>>()?;
        // Both keys first, then the secrets under the new one, then the new key alone:
        // whichever step fails, every kept secret stays readable.
        let both = KeyFile {
            keys: old
                .key_file()?
                .keys
                .into_iter()
                .chain([KeyEntry { id: id.clone(), key: STANDARD.encode(key) }])
                .collect(),
        };
        let key_path = data_dir.join(KEY_FILE_NAME);
        write_private(&key_path, &serde_json::to_vec_pretty(&both).unwrap_or_default())?;
        new.write(&SecretsFile { entries })?;
        let only = KeyFile { keys: vec![KeyEntry { id: id.clone(), key: STANDARD.encode(key) }] };
        write_private(&key_path, &serde_json::to_vec_pretty(&only).unwrap_or_default())?;
        Ok(id)
    }

    fn key_file(&self) -> Result<KeyFile, VaultError> {
        let path = self.dir.join(KEY_FILE_NAME);
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        serde_json::from_slice(&bytes)
            .map_err(|e| VaultError::Damaged(format!("{}: {e}", path.display())))
    }
}

#[async_trait::async_trait]
impl SecretVault for FileVault {
    async fn put(&self, tool_id: &str, value: &Secret) -> Result<SecretHandle, VaultError> {
        let version = uuid::Uuid::now_v7().to_string();
        let entry = self.seal(tool_id, &version, value.expose())?;
        let _held = self.lock.lock().map_err(|_| poisoned())?;
        let mut file = self.read()?;
        file.entries.push(entry);
        self.write(&file)?;
        Ok(SecretHandle { version, arn: None })
    }

    async fn get(
        &self,
        tool_id: &str,
        handle: &SecretHandle,
    ) -> Result<Option<Secret>, VaultError> {
        let file = {
            let _held = self.lock.lock().map_err(|_| poisoned())?;
            self.read()?
        };
        file.entries
            .iter()
            .find(|e| e.tool == tool_id && e.version == handle.version)
            .map(|entry| self.open_entry(entry))
            .transpose()
    }

    async fn retain(&self, tool_id: &str, keep: Option<&SecretHandle>) -> Result<(), VaultError> {
        let _held = self.lock.lock().map_err(|_| poisoned())?;
        let mut file = self.read()?;
        let before = file.entries.len();
        file.entries.retain(|e| e.tool != tool_id || keep.is_some_and(|k| k.version == e.version));
        if file.entries.len() != before {
            self.write(&file)?;
        }
        Ok(())
    }

    async fn remove(&self, tool_id: &str, handle: &SecretHandle) -> Result<(), VaultError> {
        let _held = self.lock.lock().map_err(|_| poisoned())?;
        let mut file = self.read()?;
        let before = file.entries.len();
        file.entries.retain(|e| e.tool != tool_id || e.version != handle.version);
        if file.entries.len() != before {
            self.write(&file)?;
        }
        Ok(())
    }
}

/// The associated data of an entry: its tool id and version, so a ciphertext cannot be
/// moved to another tool or version.
fn associated(tool_id: &str, version: &str) -> Vec<u8> {
    let mut aad = Vec::with_capacity(tool_id.len() + version.len() + 1);
    aad.extend_from_slice(tool_id.as_bytes());
    aad.push(0);
    aad.extend_from_slice(version.as_bytes());
    aad
}

/// Writes `bytes` to `path` atomically (temp file, fsync, rename), readable by the
/// owner only.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), VaultError> {
    registry_store::write_private_file(path, bytes)
        .map_err(|e| VaultError::Unavailable(e.to_string()))
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> VaultError + '_ {
    move |e| VaultError::Unavailable(format!("{}: {e}", path.display()))
}

fn poisoned() -> VaultError {
    VaultError::Unavailable("vault lock poisoned".into())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn values_are_encrypted_kept_by_version_and_removed_for_good() {
        let dir = tempfile::tempdir().unwrap();
        let vault = FileVault::open(dir.path()).unwrap();
        let s1 = vault.put("m1", &Secret::new("first-secret-S1")).await.unwrap();
        let s2 = vault.put("m1", &Secret::new("second-secret-S2")).await.unwrap();
        assert_ne!(s1.version, s2.version);
        let text = std::fs::read(dir.path().join(SECRETS_FILE_NAME)).unwrap();
        assert!(!String::from_utf8_lossy(&text).contains("secret-S"));
        assert_eq!(vault.get("m1", &s1).await.unwrap().unwrap().expose(), "first-secret-S1");
        // Reopened (the key is read back), the value is still there.
        let vault = FileVault::open(dir.path()).unwrap();
        assert_eq!(vault.get("m1", &s2).await.unwrap().unwrap().expose(), "second-secret-S2");
        assert!(vault.get("other", &s2).await.unwrap().is_none());
        vault.retain("m1", Some(&s2)).await.unwrap();
        assert!(vault.get("m1", &s1).await.unwrap().is_none());
        vault.retain("m1", None).await.unwrap();
        assert!(vault.get("m1", &s2).await.unwrap().is_none());
        let s3 = vault.put("m2", &Secret::new("third-secret-S3")).await.unwrap();
        let old_key = std::fs::read(dir.path().join(KEY_FILE_NAME)).unwrap();
        let old_key: KeyFile = serde_json::from_slice(&old_key).unwrap();
        drop(vault);
        // Rotation: a new key reads everything kept; the old key is gone from the file.
        let id = FileVault::rotate_key(dir.path()).unwrap();
        let vault = FileVault::open(dir.path()).unwrap();
        assert_eq!(vault.current_key_id(), id);
        assert_eq!(vault.get("m2", &s3).await.unwrap().unwrap().expose(), "third-secret-S3");
        let keys = std::fs::read_to_string(dir.path().join(KEY_FILE_NAME)).unwrap();
        assert!(!keys.contains(&old_key.keys[0].key) && !keys.contains(&old_key.keys[0].id));
        // Refused while another holder (a running `serve`) has the directory.
        let held = DataDirLock::acquire(dir.path()).unwrap();
        assert!(matches!(FileVault::rotate_key(dir.path()), Err(VaultError::InUse(_))));
        assert!(matches!(DataDirLock::acquire(dir.path()), Err(VaultError::InUse(_))));
        drop(held);
        let vault = FileVault::open(dir.path()).unwrap();
        assert_eq!(vault.current_key_id(), id, "the refused rotation changed nothing");
        #[cfg(unix)]
        for name in [KEY_FILE_NAME, SECRETS_FILE_NAME] {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(name)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{name}");
        }
    }
}
