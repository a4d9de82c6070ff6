//! Point reads: heads, many heads in `BatchGetItem` chunks, version snapshots.

use std::collections::{HashMap, HashSet};

use aws_sdk_dynamodb::types::KeysAndAttributes;
use registry_core::{Definition, Kind};
use registry_store::StoreError;

use crate::DynamoStore;
use crate::backoff::{self, MAX_ATTEMPTS};
use crate::errors;
use crate::item::{self, Item, get_s};
use crate::keys::{HEAD_SK, ID, pk, version_sk};

/// DynamoDB's limit on keys in one `BatchGetItem`.
pub const BATCH_GET_LIMIT: usize = 100;

impl DynamoStore {
    /// See [`registry_store::Store::get`]: one consistent `GetItem`.
    pub(crate) async fn get_definition(
        &self,
        kind: Kind,
        id: &str,
    ) -> Result<Option<Definition>, StoreError> {
        match self.read_head(kind, id).await? {
            Some(head) => head.definition(&self.decoded, kind, id),
            None => Ok(None),
        }
    }

    /// See [`registry_store::Store::get_many`]: one `BatchGetItem` per 100 distinct ids
    /// (plus retries of `UnprocessedKeys`), answers in the order asked.
    pub(crate) async fn get_many_definitions(
        &self,
        kind: Kind,
        ids: &[String],
    ) -> Result<Vec<Option<Definition>>, StoreError> {
        let heads = self.batch_heads(kind, ids).await?;
        ids.iter()
            .map(|id| match heads.get(id) {
                Some(item) => item::definition_of(&self.decoded, kind, item),
                None => Ok(None),
            })
            .collect()
    }

    /// Head items (live or tombstones) of `ids`, by id; absent ids are not in the map.
    pub(crate) async fn batch_heads(
        &self,
        kind: Kind,
        ids: &[String],
    ) -> Result<HashMap<String, Item>, StoreError> {
        let mut seen = HashSet::new();
        let distinct: Vec<&String> = ids.iter().filter(|id| seen.insert(id.as_str())).collect();
        let mut found = HashMap::new();
        for chunk in distinct.chunks(BATCH_GET_LIMIT) {
            let keys = chunk.iter().map(|id| item::key(pk(kind, id), HEAD_SK)).collect();
            let mut pending = Some(
                KeysAndAttributes::builder()
                    .set_keys(Some(keys))
                    .consistent_read(true)
                    .build()
                    .map_err(|e| StoreError::Backend(e.to_string()))?,
            );
            let mut attempt = 0;
            while let Some(request) = pending.take() {
                if attempt >= MAX_ATTEMPTS {
                    return Err(StoreError::Unavailable(
                        "BatchGetItem kept returning UnprocessedKeys".into(),
                    ));
                }
                if attempt > 0 {
                    backoff::sleep(attempt - 1).await;
                }
                attempt += 1;
                let out = self
                    .client
                    .batch_get_item()
                    .request_items(&self.table, request)
                    .send()
                    .await
                    .map_err(|e| errors::sdk("BatchGetItem", e))?;
                let items =
                    out.responses.and_then(|mut r| r.remove(&self.table)).unwrap_or_default();
                for item in items {
                    if let Some(id) = get_s(&item, ID) {
                        found.insert(id.to_owned(), item);
                    }
                }
                pending = out
                    .unprocessed_keys
                    .and_then(|mut u| u.remove(&self.table))
                    .filter(|k| !k.keys().is_empty());
            }
        }
        Ok(found)
    }

    /// See [`registry_store::Store::version`]: one consistent `GetItem` of the snapshot.
    pub(crate) async fn get_version(
        &self,
        kind: Kind,
        id: &str,
        version: u64,
    ) -> Result<Option<Definition>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(item::key(pk(kind, id), version_sk(version))))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| errors::sdk("GetItem", e))?;
        match out.item {
            Some(item) => item::definition_of(&self.decoded, kind, &item),
            None => Ok(None),
        }
    }
}
