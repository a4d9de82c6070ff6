//! Storage for agent and tool definitions: the [`Store`] trait every backend
//! implements, and the embedded SQLite backend.

mod error;
mod query;
mod store;

pub use error::StoreError;
pub use query::{Expected, ListFilter, ListQuery, Page, TagFilter};
pub use store::Store;
