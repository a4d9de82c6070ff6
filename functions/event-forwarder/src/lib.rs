#![doc = include_str!("../README.md")]

mod config;
mod entry;
mod forward;
mod publisher;

pub use config::Config;
pub use entry::{BusEntry, DEFAULT_SOURCE, RecordError, entry_of};
pub use forward::{MAX_CALL_BYTES, MAX_ENTRIES_PER_CALL, forward};
pub use publisher::{EventBridge, Publisher, PutFailed, Sent};
