#![doc = include_str!("../README.md")]

pub mod budget;
#[cfg(feature = "contract")]
pub mod contract;
mod counter;
mod error;
mod private_dir;
mod query;
mod store;

pub use counter::{Counter, rate_key, session_key};
pub use error::StoreError;
pub use private_dir::create_private_dir;
pub use query::{Expected, ListFilter, ListQuery, Page, TagFilter};
pub use store::{Referenced, Store};
