//! Opaque page cursors: base64url of a small JSON document naming where the last
//! page stopped.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use registry_core::Kind;
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use registry_store::StoreError;

/// Where a list page stopped: the last id returned, for one kind.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListCursor {
    k: Kind,
    after: String,
}

/// Where a version-history page stopped: the last version returned.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct VersionCursor {
    v: u64,
}

fn encode<T: Serialize>(value: &T) -> String {
    // Serializing these plain structs cannot fail; an empty cursor would only be
    // rejected on the next call, never misread.
    let json = serde_json::to_vec(value).unwrap_or_default();
    URL_SAFE_NO_PAD.encode(json)
}

fn decode<T: DeserializeOwned>(cursor: &str) -> Result<T, StoreError> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| StoreError::InvalidCursor)?;
    serde_json::from_slice(&bytes).map_err(|_| StoreError::InvalidCursor)
}

/// Cursor continuing a list of `kind` after `last_id`.
pub(crate) fn encode_list(kind: Kind, last_id: &str) -> String {
    encode(&ListCursor { k: kind, after: last_id.to_owned() })
}

/// The id a list cursor continues after; a cursor of another kind is invalid.
pub(crate) fn decode_list(kind: Kind, cursor: &str) -> Result<String, StoreError> {
    let parsed: ListCursor = decode(cursor)?;
    if parsed.k != kind {
        return Err(StoreError::InvalidCursor);
    }
    Ok(parsed.after)
}

/// Cursor continuing a version history after `last_version`.
pub(crate) fn encode_version(last_version: u64) -> String {
    encode(&VersionCursor { v: last_version })
}

/// The version a history cursor continues after.
pub(crate) fn decode_version(cursor: &str) -> Result<u64, StoreError> {
    decode::<VersionCursor>(cursor).map(|c| c.v)
}

/// The page size actually used: `limit` clamped to 1..=100.
pub(crate) fn page_size(limit: u32) -> u32 {
    limit.clamp(1, 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_cursor_round_trips_and_checks_kind() {
        let c = encode_list(Kind::Tool, "a/b~ü");
        assert_eq!(decode_list(Kind::Tool, &c).unwrap(), "a/b~ü");
        assert!(matches!(decode_list(Kind::Agent, &c), Err(StoreError::InvalidCursor)));
    }

    #[test]
    fn garbage_is_invalid() {
        for bad in ["", "!!!", "eyJ4IjoxfQ", "bm90IGpzb24"] {
            assert!(matches!(decode_list(Kind::Tool, bad), Err(StoreError::InvalidCursor)));
            assert!(matches!(decode_version(bad), Err(StoreError::InvalidCursor)));
        }
    }

    #[test]
    fn version_cursor_round_trips() {
        assert_eq!(decode_version(&encode_version(7)).unwrap(), 7);
    }
}
