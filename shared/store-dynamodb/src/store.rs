//! The [`DynamoStore`] handle and its construction.

use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use sha2::{Digest, Sha256};

use crate::counter::{CallCounter, CallCounts};
use crate::cursor::CursorCodec;
use crate::decoded::{DecodeCounts, Decoded};
use registry_sdk_config::sdk_config;

/// The registry [`Store`](registry_store::Store) on one DynamoDB table (single-table
/// design, see `docs/dynamodb.md`).
#[derive(Debug, Clone)]
pub struct DynamoStore {
    pub(crate) client: Client,
    pub(crate) table: String,
    pub(crate) cursors: CursorCodec,
    /// Decoded definitions by (kind, id, version), shared by clones (see `decoded.rs`).
    pub(crate) decoded: Arc<Decoded>,
    counter: CallCounter,
}

impl DynamoStore {
    /// A store on `table` through `client`; list cursors are signed with `cursor_key`
    /// (every instance serving the same table must use the same key).
    pub fn new(client: Client, table: impl Into<String>, cursor_key: impl AsRef<[u8]>) -> Self {
        let counter = CallCounter::default();
        let config = client.config().to_builder().interceptor(counter.clone()).build();
        Self {
            client: Client::from_conf(config),
            table: table.into(),
            cursors: CursorCodec::new(cursor_key.as_ref()),
            decoded: Arc::default(),
            counter,
        }
    }

    /// This store with a fresh decoded-definition cache of at most `entries` definitions
    /// and `bytes` bytes of stored documents (defaults: [`DEFAULT_CACHE_ENTRIES`],
    /// [`DEFAULT_CACHE_BYTES`]); `0` turns the cache off. Reads are the same requests
    /// either way: the cache only saves decoding a document seen before.
    ///
    /// [`DEFAULT_CACHE_ENTRIES`]: crate::DEFAULT_CACHE_ENTRIES
    /// [`DEFAULT_CACHE_BYTES`]: crate::DEFAULT_CACHE_BYTES
    #[must_use]
    pub fn with_decoded_cache(mut self, entries: usize, bytes: usize) -> Self {
        self.decoded = Arc::new(Decoded::new(entries, bytes));
        self
    }

    /// A store on `table` with the SDK configured from the environment (credentials and
    /// region from the usual AWS chain, rustls HTTP client, standard retries with backoff),
    /// talking to `endpoint_url` when given (a local DynamoDB-API server; region defaults to
    /// `us-east-1` there). List cursors are signed with `cursor_key` when given, else with
    /// a key derived from the table name (integrity against garbling, not against forgery).
    pub async fn connect(
        table: impl Into<String>,
        endpoint_url: Option<String>,
        cursor_key: Option<&[u8]>,
    ) -> Self {
        let table = table.into();
        let config = sdk_config(endpoint_url).await;
        let key = cursor_key.map_or_else(
            || Sha256::digest(format!("registry-cursor-v1:{table}")).to_vec(),
            <[u8]>::to_vec,
        );
        Self::new(Client::new(&config), table, key)
    }

    /// [`DynamoStore::connect`] with a binary's table settings (docs/deploy.md).
    pub async fn open(table: &registry_config::Table) -> Self {
        let key = table.cursor_key.as_deref().map(str::as_bytes);
        Self::connect(table.name.clone(), table.endpoint_url.clone(), key).await
    }

    /// The table name.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The SDK client (with the call counter installed).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// DynamoDB requests sent so far by this store (and its clones), per operation.
    pub fn calls(&self) -> CallCounts {
        self.counter.snapshot()
    }

    /// Stored documents this store (and its clones) decoded, and took from its cache.
    pub fn decode_counts(&self) -> DecodeCounts {
        self.decoded.counts()
    }

    /// Resets [`DynamoStore::calls`] and [`DynamoStore::decode_counts`] to zero (cached
    /// definitions stay).
    pub fn reset_calls(&self) {
        self.counter.reset();
        self.decoded.reset_counts();
    }
}
