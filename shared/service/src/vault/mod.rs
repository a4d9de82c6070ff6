//! Where tools' client secrets are kept: a vault beside the store, never the store.
//!
//! A definition holds only a marker of its secret (`auth.secretVersion`, and on AWS
//! `auth.secretArn`); the value sits in a [`SecretVault`]: in `serve` an encrypted file
//! in the data directory ([`FileVault`]), on AWS Secrets Manager
//! (`SecretsManagerVault`, feature `secrets-manager`). After every write the vault keeps only the
//! version the stored definition names ([`SecretVault::retain`], and
//! [`SecretVault::remove`] of the version the write replaced), so a rotated or removed
//! secret is gone from the vault too. A proposal's version lives while the proposal is
//! open: applied, it is trimmed to like a write; rejected, cancelled or stale, it is
//! removed ([`SecretVault::remove`]) unless the served definition names it.

mod file;
mod memory;
#[cfg(feature = "secrets-manager")]
mod secrets_manager;

use registry_core::Secret;

pub use file::{DataDirLock, FileVault, LOCK_FILE_NAME};
pub use memory::MemoryVault;
#[cfg(feature = "secrets-manager")]
pub use secrets_manager::SecretsManagerVault;

/// Where one version of a tool's secret is kept: what the definition records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretHandle {
    /// The version id (a new one for every new value).
    pub version: String,
    /// The secret's ARN, for a vault on Secrets Manager.
    pub arn: Option<String>,
}

/// Why the vault failed. Never carries a secret value.
#[derive(Debug, thiserror::Error)]
pub enum VaultError {
    /// The vault could not be read or written (I/O, AWS); retry later.
    #[error("secret vault unavailable: {0}")]
    Unavailable(String),
    /// The vault's contents cannot be decrypted or parsed (wrong or rotated-away key).
    #[error("secret vault damaged: {0}")]
    Damaged(String),
    /// Another process (a running `serve`) holds the data directory.
    #[error("{0}")]
    InUse(String),
}

/// A store of tools' client secrets, by tool id and version.
#[async_trait::async_trait]
pub trait SecretVault: Send + Sync + 'static {
    /// Keeps `value` as a new version of `tool_id`'s secret; earlier versions stay
    /// until [`SecretVault::retain`].
    async fn put(&self, tool_id: &str, value: &Secret) -> Result<SecretHandle, VaultError>;
    /// The value of one version, `None` when the vault has no such version.
    async fn get(&self, tool_id: &str, handle: &SecretHandle)
    -> Result<Option<Secret>, VaultError>;
    /// Removes every version of `tool_id`'s secret but `keep` (all of them when `None`):
    /// called after each write with what the stored definition names.
    async fn retain(&self, tool_id: &str, keep: Option<&SecretHandle>) -> Result<(), VaultError>;
    /// Removes one version: the one a write replaced or removed, or one that a failed
    /// write or a closed proposal brought. Removing a version the vault does not hold
    /// succeeds.
    async fn remove(&self, tool_id: &str, handle: &SecretHandle) -> Result<(), VaultError>;
    /// The value of a secret the user keeps and names by ARN (`auth.clientSecretRef`),
    /// read when a token is needed, never stored.
    async fn get_reference(&self, arn: &str) -> Result<Secret, VaultError> {
        Err(VaultError::Unavailable(format!(
            "this server cannot read Secrets Manager secrets such as {arn}"
        )))
    }
    /// Whether `arn` names a secret this vault keeps for the tools: such a secret is
    /// never a user's reference (another tool's secret would go to this tool's token
    /// endpoint).
    fn owns(&self, _arn: &str) -> bool {
        false
    }
}
