//! A vault in memory: for tests and for library use without a data directory.

use std::collections::HashMap;
use std::sync::Mutex;

use registry_core::Secret;

use super::{SecretHandle, SecretVault, VaultError};

/// Secrets kept in this process only (lost on exit).
#[derive(Debug, Default)]
pub struct MemoryVault {
    secrets: Mutex<HashMap<(String, String), Secret>>,
}

#[async_trait::async_trait]
impl SecretVault for MemoryVault {
    async fn put(&self, tool_id: &str, value: &Secret) -> Result<SecretHandle, VaultError> {
        let version = uuid::Uuid::now_v7().to_string();
        let mut secrets = self.secrets.lock().map_err(|_| poisoned())?;
        secrets.insert((tool_id.to_owned(), version.clone()), value.clone());
        Ok(SecretHandle { version, arn: None })
    }

    async fn get(
        &self,
        tool_id: &str,
        handle: &SecretHandle,
    ) -> Result<Option<Secret>, VaultError> {
        let secrets = self.secrets.lock().map_err(|_| poisoned())?;
        Ok(secrets.get(&(tool_id.to_owned(), handle.version.clone())).cloned())
    }

    async fn retain(&self, tool_id: &str, keep: Option<&SecretHandle>) -> Result<(), VaultError> {
        let mut secrets = self.secrets.lock().map_err(|_| poisoned())?;
        secrets.retain(|(tool, version), _| {
            tool != tool_id || keep.is_some_and(|k| k.version == *version)
        });
        Ok(())
    }

    async fn remove(&self, tool_id: &str, handle: &SecretHandle) -> Result<(), VaultError> {
        let mut secrets = self.secrets.lock().map_err(|_| poisoned())?;
        secrets.remove(&(tool_id.to_owned(), handle.version.clone()));
        Ok(())
    }
}

fn poisoned() -> VaultError {
    VaultError::Unavailable("memory vault lock poisoned".into())
}
