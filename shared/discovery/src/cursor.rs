//! The opaque cursor of `/v0.1/servers`: the last entry returned (server name and
//! version), so a page depends only on what the caller sees.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::server_json::ServerKey;

/// Longest cursor accepted, in bytes.
pub const MAX_CURSOR_BYTES: usize = 512;

/// A cursor that is not one this registry gave out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the cursor is not one this registry returned")]
pub struct BadCursor;

/// The cursor continuing after `key`.
pub fn encode(key: &ServerKey) -> String {
    URL_SAFE_NO_PAD.encode(format!("{}\n{}", key.name, key.version))
}

/// The key a cursor continues after.
pub fn decode(cursor: &str) -> Result<ServerKey, BadCursor> {
    if cursor.len() > MAX_CURSOR_BYTES {
        return Err(BadCursor);
    }
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| BadCursor)?;
    let text = String::from_utf8(bytes).map_err(|_| BadCursor)?;
    let (name, version) = text.split_once('\n').ok_or(BadCursor)?;
    let version = semver::Version::parse(version).map_err(|_| BadCursor)?;
    Ok(ServerKey { name: name.to_owned(), version })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_garbage_is_refused() {
        let key = ServerKey {
            name: "com.example/weather".to_owned(),
            version: semver::Version::new(1, 2, 3),
        };
        assert_eq!(decode(&encode(&key)), Ok(key));
        assert_eq!(decode("%%%"), Err(BadCursor));
        assert_eq!(decode(&URL_SAFE_NO_PAD.encode("no-newline")), Err(BadCursor));
        assert_eq!(decode(&URL_SAFE_NO_PAD.encode("a\nnot-semver")), Err(BadCursor));
    }
}
