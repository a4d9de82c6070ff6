//! The `tokens` command: API tokens for the embedded-store server.

use anyhow::{Context, Result};
use registry_api::{Role, TokenFile};

use crate::args::{RoleArg, TokenOperation};

/// Runs a token operation on the data directory's `auth.json`.
pub fn run(op: TokenOperation) -> Result<()> {
    match op {
        TokenOperation::Add { name, role, data_dir } => {
            let role = match role {
                RoleArg::Reader => Role::Reader,
                RoleArg::Runtime => Role::Runtime,
                RoleArg::Approver => Role::Approver,
                RoleArg::Editor => Role::Editor,
                RoleArg::Admin => Role::Admin,
            };
            registry_store::create_private_dir(&data_dir)
                .with_context(|| format!("cannot create {}", data_dir.display()))?;
            let token =
                TokenFile::add_token(&data_dir, &name, role).context("cannot add the token")?;
            println!("{token}");
            eprintln!(
                "Token for `{name}` ({role:?}) stored hashed in {}; a running server picks it up on restart.",
                data_dir.join("auth.json").display()
            );
            Ok(())
        }
    }
}
