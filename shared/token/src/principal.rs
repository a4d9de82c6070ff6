//! What a verified token says: its claims.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The RFC 8693 actor: the agent acting for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    /// The agent id.
    pub sub: String,
}

/// A token's claims (decision 83; the claims table is in docs/call-policy.md).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Principal {
    /// The registry that issued it.
    pub iss: String,
    /// The user the agent acts for (the context's `user.userId`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub: Option<String>,
    /// The agent resolved.
    pub act: Actor,
    /// Who the token is for.
    pub aud: String,
    /// The session it is bound to: Bedrock's `sessionId`.
    pub sid: String,
    /// Issued at (Unix seconds).
    pub iat: i64,
    /// Not before (Unix seconds): the registry issues none; checked when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<i64>,
    /// Expires at (Unix seconds).
    pub exp: i64,
    /// The token's unique id.
    pub jti: String,
    /// The request context the resolution decided on, as its JSON text.
    pub ctx: Box<RawValue>,
}

impl Principal {
    /// The agent resolved (`act.sub`).
    pub fn agent_id(&self) -> &str {
        &self.act.sub
    }

    /// The session the token is bound to (`sid`).
    pub fn session_id(&self) -> &str {
        &self.sid
    }

    /// When the token expires (Unix seconds).
    pub fn expires_at(&self) -> i64 {
        self.exp
    }

    /// The request context's JSON text (`ctx`).
    pub fn context_json(&self) -> &str {
        self.ctx.get()
    }
}

impl PartialEq for Principal {
    fn eq(&self, other: &Self) -> bool {
        self.jti == other.jti
            && self.iss == other.iss
            && self.sub == other.sub
            && self.act == other.act
            && self.aud == other.aud
            && self.sid == other.sid
            && self.iat == other.iat
            && self.nbf == other.nbf
            && self.exp == other.exp
            && self.ctx.get() == other.ctx.get()
    }
}
