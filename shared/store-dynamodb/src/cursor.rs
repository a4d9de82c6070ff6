//! Opaque list cursors: a `LastEvaluatedKey`-style key, HMAC-SHA256-signed and base64url.
//!
//! Format: `base64url(json key) "." base64url(hmac(scope, json key))`. The scope names the
//! query the cursor belongs to (index and partition), so a cursor only resumes the list it
//! came from; a garbled, forged or foreign cursor is [`StoreError::InvalidCursor`].

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use registry_store::StoreError;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Signs and verifies cursors with one secret key.
#[derive(Clone)]
pub struct CursorCodec {
    key: Vec<u8>,
}

impl std::fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorCodec(***)")
    }
}

impl CursorCodec {
    /// A codec signing with `key`.
    pub fn new(key: &[u8]) -> Self {
        Self { key: key.to_vec() }
    }

    fn mac(&self, scope: &str, payload: &[u8]) -> Result<HmacSha256, StoreError> {
        // HMAC accepts keys of any length; this error cannot happen.
        let mut mac = HmacSha256::new_from_slice(&self.key)
            .map_err(|e| StoreError::Backend(format!("cursor key: {e}")))?;
        mac.update(&(scope.len() as u64).to_be_bytes());
        mac.update(scope.as_bytes());
        mac.update(payload);
        Ok(mac)
    }

    /// Encodes the key attributes `names` of `item` (all strings) as a cursor for `scope`.
    pub fn encode(
        &self,
        scope: &str,
        item: &HashMap<String, AttributeValue>,
        names: &[&str],
    ) -> Result<String, StoreError> {
        let mut key = BTreeMap::new();
        for name in names {
            let value = item
                .get(*name)
                .and_then(|v| v.as_s().ok())
                .ok_or_else(|| StoreError::Backend(format!("list item lacks key `{name}`")))?;
            key.insert(*name, value.as_str());
        }
        let payload = serde_json::to_vec(&key)
            .map_err(|e| StoreError::Backend(format!("cursor encoding: {e}")))?;
        let tag = self.mac(scope, &payload)?.finalize().into_bytes();
        Ok(format!("{}.{}", URL_SAFE_NO_PAD.encode(&payload), URL_SAFE_NO_PAD.encode(tag)))
    }

    /// Decodes a cursor issued for `scope` into an `ExclusiveStartKey` with exactly the
    /// attributes `names`.
    pub fn decode(
        &self,
        scope: &str,
        cursor: &str,
        names: &[&str],
    ) -> Result<HashMap<String, AttributeValue>, StoreError> {
        let (payload, tag) = cursor.split_once('.').ok_or(StoreError::InvalidCursor)?;
        let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| StoreError::InvalidCursor)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| StoreError::InvalidCursor)?;
        self.mac(scope, &payload)?.verify_slice(&tag).map_err(|_| StoreError::InvalidCursor)?;
        let key: BTreeMap<String, String> =
            serde_json::from_slice(&payload).map_err(|_| StoreError::InvalidCursor)?;
        if key.len() != names.len() || !names.iter().all(|n| key.contains_key(*n)) {
            return Err(StoreError::InvalidCursor);
        }
        Ok(key.into_iter().map(|(k, v)| (k, AttributeValue::S(v))).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item() -> HashMap<String, AttributeValue> {
        HashMap::from([
            ("pk".to_owned(), AttributeValue::S("AGENT#a".into())),
            ("sk".to_owned(), AttributeValue::S("HEAD".into())),
        ])
    }

    #[test]
    fn round_trips() {
        let codec = CursorCodec::new(b"k");
        let c = codec.encode("s", &item(), &["pk", "sk"]).unwrap();
        assert_eq!(codec.decode("s", &c, &["pk", "sk"]).unwrap(), item());
    }

    #[test]
    fn rejects_garbled_forged_and_foreign() {
        let codec = CursorCodec::new(b"k");
        let c = codec.encode("s", &item(), &["pk", "sk"]).unwrap();
        let names = ["pk", "sk"];
        assert!(matches!(codec.decode("other", &c, &names), Err(StoreError::InvalidCursor)));
        assert!(matches!(
            CursorCodec::new(b"x").decode("s", &c, &names),
            Err(StoreError::InvalidCursor)
        ));
        for bad in ["", ".", "abc", "a.b", &c[1..], &format!("{c}x")] {
            assert!(
                matches!(codec.decode("s", bad, &names), Err(StoreError::InvalidCursor)),
                "{bad}"
            );
        }
        assert!(matches!(codec.decode("s", &c, &["pk"]), Err(StoreError::InvalidCursor)));
    }
}
