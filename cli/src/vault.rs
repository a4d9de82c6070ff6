//! The `vault` command: the embedded server's secret vault.

use anyhow::{Context, Result};
use registry_api::vault::FileVault;

use crate::args::VaultOperation;

/// Runs a vault operation on the data directory.
pub fn run(op: VaultOperation) -> Result<()> {
    match op {
        VaultOperation::RotateKey { data_dir } => {
            let id = FileVault::rotate_key(&data_dir).with_context(|| {
                format!("cannot rotate the vault key in {}", data_dir.display())
            })?;
            println!("{id}");
            eprintln!(
                "Every secret in {} is now encrypted under key {id}; the old key is gone.",
                data_dir.join("secrets.json").display()
            );
            Ok(())
        }
    }
}
