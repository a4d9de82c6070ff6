//! Audit events: one per state change, appended by the store in the same transaction
//! as the change, numbered without gaps so a reader can resume exactly where it stopped.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use registry_core::Kind;
use serde::{Deserialize, Serialize};

use crate::{Proposal, StoreError};

/// What a change did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
pub enum Action {
    /// A definition was created.
    #[serde(rename = "create")]
    Create,
    /// A definition was replaced (PUT).
    #[serde(rename = "replace")]
    Replace,
    /// A definition was changed by a merge patch.
    #[serde(rename = "patch")]
    Patch,
    /// A definition was deleted.
    #[serde(rename = "delete")]
    Delete,
    /// Only a definition's lifecycle changed.
    #[serde(rename = "lifecycle")]
    Lifecycle,
    /// An agent was published to Bedrock (its publication record stored).
    #[serde(rename = "publish")]
    Publish,
    /// An agent's Bedrock publication was removed.
    #[serde(rename = "unpublish")]
    Unpublish,
    /// A proposal was opened.
    #[serde(rename = "proposal.opened")]
    ProposalOpened,
    /// A proposal received an approval.
    #[serde(rename = "proposal.approved")]
    ProposalApproved,
    /// A proposal was rejected.
    #[serde(rename = "proposal.rejected")]
    ProposalRejected,
    /// A proposal was cancelled by its author.
    #[serde(rename = "proposal.cancelled")]
    ProposalCancelled,
    /// An approved proposal became the served definition.
    #[serde(rename = "proposal.applied")]
    ProposalApplied,
    /// An approved proposal could not apply: the definition had changed since its base.
    #[serde(rename = "proposal.stale")]
    ProposalStale,
}

impl Action {
    /// Every action, in declaration order.
    pub const ALL: [Action; 13] = [
        Self::Create,
        Self::Replace,
        Self::Patch,
        Self::Delete,
        Self::Lifecycle,
        Self::Publish,
        Self::Unpublish,
        Self::ProposalOpened,
        Self::ProposalApproved,
        Self::ProposalRejected,
        Self::ProposalCancelled,
        Self::ProposalApplied,
        Self::ProposalStale,
    ];

    /// The wire name (`create`, `proposal.opened`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Replace => "replace",
            Self::Patch => "patch",
            Self::Delete => "delete",
            Self::Lifecycle => "lifecycle",
            Self::Publish => "publish",
            Self::Unpublish => "unpublish",
            Self::ProposalOpened => "proposal.opened",
            Self::ProposalApproved => "proposal.approved",
            Self::ProposalRejected => "proposal.rejected",
            Self::ProposalCancelled => "proposal.cancelled",
            Self::ProposalApplied => "proposal.applied",
            Self::ProposalStale => "proposal.stale",
        }
    }

    /// The action with wire name `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == name)
    }
}

/// An event before the store numbers and stamps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventDraft {
    /// Who made the change (from authentication).
    pub actor: String,
    /// What the change did.
    pub action: Action,
    /// Kind of the definition concerned.
    pub kind: Kind,
    /// Id of the definition concerned.
    pub id: String,
    /// The proposal concerned, if any.
    pub proposal: Option<String>,
    /// The live version before the change (`None`: none was live).
    pub version_before: Option<u64>,
    /// The live version after the change (`None`: none is live, or nothing served changed).
    pub version_after: Option<u64>,
    /// JSON pointers of the fields that changed (never their values).
    pub changed: Vec<String>,
}

/// One recorded state change.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Position in the event stream: 1, 2, 3 ... without gaps, in commit order.
    pub seq: u64,
    /// When the change committed, RFC 3339 UTC.
    pub time: DateTime<Utc>,
    /// Who made the change.
    pub actor: String,
    /// What the change did.
    pub action: Action,
    /// Kind of the definition concerned.
    #[schema(value_type = String)]
    pub kind: Kind,
    /// Id of the definition concerned.
    pub id: String,
    /// The proposal concerned, if any.
    pub proposal: Option<String>,
    /// The live version before the change.
    pub version_before: Option<u64>,
    /// The live version after the change.
    pub version_after: Option<u64>,
    /// JSON pointers of the fields that changed (values, secrets above all, never appear).
    #[serde(default)]
    pub changed: Vec<String>,
}

impl EventDraft {
    /// The event numbered `seq`, committed at `time`.
    pub fn into_event(self, seq: u64, time: DateTime<Utc>) -> Event {
        Event {
            seq,
            time,
            actor: self.actor,
            action: self.action,
            kind: self.kind,
            id: self.id,
            proposal: self.proposal,
            version_before: self.version_before,
            version_after: self.version_after,
            changed: self.changed,
        }
    }
}

/// Who makes a definition write and why: the store records it as the write's event.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The authenticated principal.
    pub actor: String,
    /// What the write does.
    pub action: Action,
    /// A proposal record written in the same transaction (an approved proposal being
    /// applied); its id goes into the event.
    pub proposal: Option<ProposalUpdate>,
}

impl Change {
    /// A change by `actor` doing `action`, with no proposal.
    pub fn new(actor: impl Into<String>, action: Action) -> Self {
        Self { actor: actor.into(), action, proposal: None }
    }
}

/// A proposal to store together with a definition write, if its stored revision is still
/// `expected_revision`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposalUpdate {
    /// The proposal as it should be stored (its revision is assigned by the store).
    pub proposal: Proposal,
    /// The revision the stored proposal must have.
    pub expected_revision: u64,
}

/// Which events a page holds; all given filters must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventQuery {
    /// Only events after this sequence number (0: from the start).
    pub after: u64,
    /// Page size, 1..=1000 (backends clamp).
    pub limit: u32,
    /// Only events of this kind.
    pub kind: Option<Kind>,
    /// Only events of this definition id.
    pub id: Option<String>,
    /// Only events by this actor.
    pub actor: Option<String>,
    /// Only events with this action.
    pub action: Option<Action>,
}

/// One page of events, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct EventPage {
    /// The matching events.
    pub events: Vec<Event>,
    /// The sequence number to continue after: the last event returned, or when fewer
    /// than a page matched, the last event committed when the page was read (every
    /// event up to it was considered). Never less than the query's `after`.
    pub last: u64,
}

/// The largest page of events.
pub const MAX_EVENT_PAGE: u32 = 1000;

/// The page size actually used: `limit` clamped to 1..=[`MAX_EVENT_PAGE`].
pub fn event_page_size(limit: u32) -> u32 {
    limit.clamp(1, MAX_EVENT_PAGE)
}

/// The opaque cursor continuing after sequence number `seq`.
pub fn encode_event_cursor(seq: u64) -> String {
    URL_SAFE_NO_PAD.encode(format!("ev1:{seq}"))
}

/// The sequence number an event cursor continues after; anything not issued by
/// [`encode_event_cursor`] is [`StoreError::InvalidCursor`].
pub fn decode_event_cursor(cursor: &str) -> Result<u64, StoreError> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| StoreError::InvalidCursor)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| StoreError::InvalidCursor)?;
    let digits = text.strip_prefix("ev1:").ok_or(StoreError::InvalidCursor)?;
    parse_event_seq(digits).ok_or(StoreError::InvalidCursor)
}

/// The largest sequence number an event can have: every backend stores it as a signed
/// 64-bit integer (SQLite's `INTEGER`), so no cursor past it was ever issued.
pub const MAX_EVENT_SEQ: u64 = i64::MAX.unsigned_abs();

/// A sequence number written in decimal digits alone (no sign, no space), at most
/// [`MAX_EVENT_SEQ`]; `None` for anything else.
pub fn parse_event_seq(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|seq| *seq <= MAX_EVENT_SEQ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_garbage_is_invalid() {
        for seq in [0, 1, 42, MAX_EVENT_SEQ] {
            assert_eq!(decode_event_cursor(&encode_event_cursor(seq)).ok(), Some(seq));
        }
        let past = [MAX_EVENT_SEQ + 1, u64::MAX].map(encode_event_cursor);
        for bad in ["", "!!", "ev1:", "ZXYxOg", "ZXYxOi0x", "eyJ4IjoxfQ", &past[0], &past[1]] {
            assert!(matches!(decode_event_cursor(bad), Err(StoreError::InvalidCursor)), "{bad}");
        }
        for bad in ["", "-1", "+1", " 1", "1e3", "9223372036854775808", "99999999999999999999"] {
            assert_eq!(parse_event_seq(bad), None, "{bad}");
        }
        assert_eq!(parse_event_seq("9223372036854775807"), Some(MAX_EVENT_SEQ));
    }

    #[test]
    fn action_names_round_trip() {
        for action in Action::ALL {
            assert_eq!(Action::parse(action.as_str()), Some(action));
            let json = serde_json::to_value(action).ok();
            assert_eq!(json, Some(serde_json::Value::from(action.as_str())));
        }
        assert_eq!(Action::parse("nope"), None);
    }
}
