//! DynamoDB single-table backend of the registry [`Store`](registry_store::Store) trait.
//!
//! Entry points: [`DynamoStore::connect`] / [`DynamoStore::from_env`] (SDK from the
//! environment), [`DynamoStore::new`] (bring your own client), [`DynamoStore::create_table`].
//! The table design and access patterns are in `docs/dynamodb.md`.

mod backoff;
mod counter;
mod cursor;
mod decoded;
mod errors;
mod expr;
mod item;
mod keys;
mod list;
#[cfg(feature = "local-server")]
pub mod local;
mod read;
mod store;
mod store_impl;
mod table;
mod write;

pub use counter::CallCounts;
pub use decoded::{DEFAULT_CACHE_BYTES, DEFAULT_CACHE_ENTRIES, DecodeCounts};
pub use store::{CURSOR_KEY_ENV, DynamoStore};
pub use write::MAX_TRANSACTION_ITEMS;
