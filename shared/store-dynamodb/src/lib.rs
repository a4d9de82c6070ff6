#![doc = include_str!("../README.md")]

mod audit;
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
mod session_items;
mod store;
mod store_impl;
pub mod table;
mod write;

pub use counter::CallCounts;
pub use decoded::{DEFAULT_CACHE_BYTES, DEFAULT_CACHE_ENTRIES, DecodeCounts};
pub use store::DynamoStore;
pub use write::MAX_TRANSACTION_ITEMS;
