//! The response JSON of stored definitions by (kind, id, version), so a read serializes
//! each version once. Versions are immutable and never reused (docs/decisions.md entry
//! 3), so an entry whose version matches is always right, whichever process wrote it;
//! the version itself still comes from the store on every read.
//!
//! The bytes are those of the redacted definition: write-only secrets never serialize
//! (`registry_core::Secret`), and a miss encodes a redacted tool besides.

use bytes::Bytes;
use registry_core::{Definition, Kind, VersionCache};
use serde::Serialize;

use crate::ServiceError;

/// Entries kept per kind; when full, the entry least worth keeping makes room (hot
/// definitions return after one encode each).
const CAPACITY: usize = 4096;

/// The newest encoded version of each id, per kind.
#[derive(Debug)]
pub(crate) struct Encoded {
    kinds: [VersionCache<Bytes>; 2],
}

impl Default for Encoded {
    fn default() -> Self {
        Self { kinds: [VersionCache::new(CAPACITY), VersionCache::new(CAPACITY)] }
    }
}

impl Encoded {
    fn slot(&self, kind: Kind) -> &VersionCache<Bytes> {
        match kind {
            Kind::Agent => &self.kinds[0],
            Kind::Tool => &self.kinds[1],
        }
    }

    /// The response JSON of `definition` (a stored definition: one without a version
    /// is encoded every time and not kept).
    pub(crate) fn json(&self, definition: &Definition) -> Result<Bytes, ServiceError> {
        let (kind, id, version) = (definition.kind(), definition.id(), definition.version());
        let slot = self.slot(kind);
        if let Some(hit) = slot.get(id, version) {
            return Ok(hit);
        }
        let bytes = Bytes::from(match definition {
            Definition::Agent(agent) => encode(kind, agent)?,
            Definition::Tool(tool) => encode(kind, &tool.redacted())?,
        });
        slot.put(id, version, bytes.clone());
        Ok(bytes)
    }
}

/// The JSON of a redacted definition of `kind`.
fn encode(kind: Kind, redacted: &impl Serialize) -> Result<Vec<u8>, ServiceError> {
    serde_json::to_vec(redacted)
        .map_err(|e| ServiceError::Internal(format!("cannot encode {}: {e}", kind.as_str())))
}

/// One page of a list or a version history.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageBody<T> {
    /// The items on this page.
    pub items: Vec<T>,
    /// Cursor for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The JSON of a page body (`{"items":[...],"nextCursor":...}`, as [`PageBody`]
/// serializes) from the items' JSON.
pub(crate) fn page(items: &[Bytes], next_cursor: Option<&str>) -> Result<Bytes, ServiceError> {
    let size = items.iter().map(|i| i.len() + 1).sum::<usize>() + 32;
    let mut out = Vec::with_capacity(size + next_cursor.map_or(0, str::len));
    out.extend_from_slice(b"{\"items\":[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    out.push(b']');
    if let Some(cursor) = next_cursor {
        out.extend_from_slice(b",\"nextCursor\":");
        cursor
            .serialize(&mut serde_json::Serializer::new(&mut out))
            .map_err(|e| ServiceError::Internal(format!("cannot encode a cursor: {e}")))?;
    }
    out.push(b'}');
    Ok(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use registry_core::ToolDefinition;
    use serde_json::json;

    fn tool(id: &str, version: u64, description: &str) -> Definition {
        let tool: ToolDefinition = serde_json::from_value(json!({
            "toolId": id, "executionType": "mcp", "name": "t", "description": description,
            "supportedAgentFrameworks": ["bedrock"], "url": "https://mcp.example.com",
            "auth": {"clientId": "c", "clientSecret": "hunter2", "tokenUrl": "https://t.example.com"},
            "version": version,
        }))
        .unwrap();
        Definition::Tool(tool)
    }

    #[test]
    fn a_new_version_is_encoded_again_and_secrets_never_appear() {
        let cache = Encoded::default();
        let v1 = cache.json(&tool("a", 1, "first")).unwrap();
        assert!(std::str::from_utf8(&v1).unwrap().contains("first"));
        assert!(!std::str::from_utf8(&v1).unwrap().contains("hunter2"));
        // same version: the kept bytes (a version's content never changes)
        assert_eq!(cache.json(&tool("a", 1, "first")).unwrap(), v1);
        let v2 = cache.json(&tool("a", 2, "second")).unwrap();
        assert!(std::str::from_utf8(&v2).unwrap().contains("second"));
        // an older version read late does not displace the newer one
        cache.json(&tool("a", 1, "first")).unwrap();
        assert_eq!(cache.json(&tool("a", 2, "second")).unwrap(), v2);
        // unversioned: never kept
        cache.json(&tool("u", 0, "x")).unwrap();
        assert_eq!(cache.slot(Kind::Tool).len(), 1, "only `a` is kept");
    }

    #[test]
    fn a_page_is_what_page_body_serializes() {
        let cache = Encoded::default();
        let defs = [tool("a", 1, "one"), tool("b", 3, "two")];
        let items: Vec<Bytes> = defs.iter().map(|d| cache.json(d).unwrap()).collect();
        let typed: Vec<ToolDefinition> = defs
            .iter()
            .map(|d| match d {
                Definition::Tool(t) => t.redacted(),
                Definition::Agent(_) => unreachable!(),
            })
            .collect();
        for cursor in [None, Some("abc\"\\/\u{1}é")] {
            let expected = serde_json::to_vec(&PageBody {
                items: typed.clone(),
                next_cursor: cursor.map(str::to_owned),
            })
            .unwrap();
            assert_eq!(page(&items, cursor).unwrap(), expected);
        }
        let empty = serde_json::to_vec(&PageBody::<ToolDefinition> {
            items: Vec::new(),
            next_cursor: None,
        })
        .unwrap();
        assert_eq!(page(&[], None).unwrap(), empty);
    }
}
