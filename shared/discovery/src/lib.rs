#![doc = include_str!("../README.md")]

pub mod agent_card;
pub mod catalog;
pub mod cursor;
pub mod search;
pub mod server_json;

pub use agent_card::{AgentCard, agent_card};
pub use search::{Hit, ToolIndex};
pub use server_json::{ServerKey, ServerResponse, Status, server_key, server_response};
