//! Storage for agent and tool definitions: the [`Store`] trait every backend
//! implements, and the embedded SQLite backend ([`SqliteStore`]).
//!
//! With the `contract` feature, [`contract`] holds the test suite every backend must
//! pass and [`contract_tests!`] turns it into `#[tokio::test]`s.

#[cfg(feature = "contract")]
pub mod contract;
mod cursor;
mod error;
mod query;
mod sqlite;
mod store;

pub use error::StoreError;
pub use query::{Expected, ListFilter, ListQuery, Page, TagFilter};
pub use sqlite::{SCHEMA_VERSION, SqliteStore, create_private_dir};
pub use store::Store;
