//! Storage for agent and tool definitions: the [`Store`] trait every backend
//! implements, its query and error types, and the contract suite every backend passes.
//! The backends live in their own crates (`registry-store-sqlite`,
//! `registry-store-dynamodb`), so a binary links only the one it uses.
//!
//! With the `contract` feature, [`contract`] holds the test suite every backend must
//! pass and [`contract_tests!`] turns it into `#[tokio::test]`s.

#[cfg(feature = "contract")]
pub mod contract;
mod error;
mod private_dir;
mod query;
mod store;

pub use error::StoreError;
pub use private_dir::create_private_dir;
pub use query::{Expected, ListFilter, ListQuery, Page, TagFilter};
pub use store::{Referenced, Store};
