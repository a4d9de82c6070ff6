//! Counter records kept beside the definitions (SPEC section 19): one Bedrock
//! session's state or one rate window, each written only on the version it was read
//! at, so that the check and the increment of a budget cannot be split.

use serde_json::Value;

/// One counter record.
#[derive(Debug, Clone, PartialEq)]
pub struct Counter {
    /// Its key (`session#<agentId>#<sessionId>`, `rate#<toolId>#<key>#<value>`).
    pub key: String,
    /// The stored version (1, 2, ...); a write names the version it creates.
    pub version: u64,
    /// The state, as JSON.
    pub value: Value,
    /// When it expires (Unix seconds); an expired record reads as absent.
    pub expires_at: i64,
}

impl Counter {
    /// The version a write of this record expects to find (0: absent or expired).
    pub fn expected(&self) -> u64 {
        self.version.saturating_sub(1)
    }
}

/// The key of one session's state.
pub fn session_key(agent_id: &str, session_id: &str) -> String {
    format!("session#{agent_id}#{session_id}")
}

/// The key of one rate window's count: the tool, whose calls count together
/// (`principal` or `account`) and who.
pub fn rate_key(tool_id: &str, key: &str, who: &str) -> String {
    format!("rate#{tool_id}#{key}#{who}")
}
