//! Opening the DynamoDB store for `serve --store dynamodb`.

use std::sync::Arc;

use anyhow::{Context, Result};
use registry_store::Store;
use registry_store_dynamodb::DynamoStore;

use crate::args::StoreArgs;

/// Opens the DynamoDB table named by `--table`, creating it with `--create-table`.
/// Never reports a first run: the example is only loaded into a new embedded store.
/// List cursors are signed with `cursor_key` when given.
pub async fn open(args: &StoreArgs, cursor_key: Option<&str>) -> Result<(Arc<dyn Store>, bool)> {
    let table = args.table.clone().context("--store dynamodb needs --table NAME")?;
    let key = cursor_key.map(str::as_bytes);
    let store = DynamoStore::connect(table.clone(), args.endpoint_url.clone(), key).await;
    if args.create_table {
        store.create_table().await.with_context(|| format!("cannot create table {table}"))?;
    }
    Ok((Arc::new(store), false))
}
