//! Opening the DynamoDB store for `serve --store dynamodb`.

use std::sync::Arc;

use anyhow::{Context, Result};
use registry_store::Store;
use registry_store_dynamodb::DynamoStore;

use crate::args::ServeArgs;

/// Opens the DynamoDB table named by `--table`, creating it with `--create-table`.
/// Never reports a first run: the example is only loaded into a new embedded store.
pub async fn open(args: &ServeArgs) -> Result<(Arc<dyn Store>, bool)> {
    let table = args.table.clone().context("--store dynamodb needs --table NAME")?;
    let store = DynamoStore::connect(table.clone(), args.endpoint_url.clone()).await;
    if args.create_table {
        store.create_table().await.with_context(|| format!("cannot create table {table}"))?;
    }
    Ok((Arc::new(store), false))
}
