//! Discovery without I/O (docs/discovery.md): the tool search index ([`search`]), an MCP
//! tool release as an MCP Registry `server.json` ([`server_json`]), an agent as an A2A
//! agent card ([`agent_card`]), the AI catalog's entries ([`catalog`]) and the servers
//! list's cursor ([`cursor`]). Who may see what is decided by resolution, in the
//! `registry-api` service that calls this crate.

pub mod agent_card;
pub mod catalog;
pub mod cursor;
pub mod search;
pub mod server_json;

pub use agent_card::{AgentCard, agent_card};
pub use search::{Hit, ToolIndex};
pub use server_json::{ServerKey, ServerResponse, Status, server_key, server_response};
