//! Opening the DynamoDB store for `serve --store dynamodb`.

use std::sync::Arc;

use anyhow::{Result, bail};
use registry_store::Store;

use crate::args::ServeArgs;

/// Opens the DynamoDB table named by `--table`; never "fresh" (no example is loaded).
pub async fn open(args: &ServeArgs) -> Result<(Arc<dyn Store>, bool)> {
    let Some(_table) = &args.table else { bail!("--store dynamodb needs --table NAME") };
    bail!("the DynamoDB store is not available in this build")
}
