#![doc = include_str!("../README.md")]

mod config;
#[cfg(feature = "local-server")]
pub mod local;

pub use config::{MAX_SDK_ATTEMPTS, sdk_config};
