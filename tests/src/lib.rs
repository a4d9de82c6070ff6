#![doc = include_str!("../README.md")]

pub mod binaries;
pub mod events;
pub mod lambda;
pub mod response_url;
pub mod runtime_api;
pub mod serve;
pub mod sqs;
pub mod webdriver;

pub use lambda::{Lambda, Table};
pub use response_url::{Put, ResponseUrl};
pub use runtime_api::{Answer, RuntimeApi};
