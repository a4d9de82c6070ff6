//! Differences between two JSON documents as RFC 6902 operations, and the changed
//! fields of a definition write as JSON pointers.

use registry_core::Definition;
use serde::Serialize;
use serde_json::{Map, Value};

/// One RFC 6902 operation turning the old document into the new one.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum PatchOp {
    /// Adds a member that was absent.
    Add {
        /// JSON pointer (RFC 6901).
        path: String,
        /// The new value.
        value: Value,
    },
    /// Removes a member.
    Remove {
        /// JSON pointer (RFC 6901).
        path: String,
    },
    /// Replaces a value (arrays are replaced whole).
    Replace {
        /// JSON pointer (RFC 6901).
        path: String,
        /// The new value.
        value: Value,
    },
}

impl PatchOp {
    /// The pointer the operation changes.
    pub fn path(&self) -> &str {
        match self {
            Self::Add { path, .. } | Self::Remove { path } | Self::Replace { path, .. } => path,
        }
    }
}

/// Server-managed members left out of [`changed_pointers`]: they change on every write.
const SERVER_MEMBERS: [&str; 5] =
    ["version", "createdBy", "lastModifiedBy", "createdAt", "updatedAt"];

/// The operations turning `before` into `after`: objects member by member (in key
/// order), anything else replaced whole.
pub fn diff(before: &Value, after: &Value) -> Vec<PatchOp> {
    let mut ops = Vec::new();
    diff_at(String::new(), before, after, &mut ops);
    ops
}

fn diff_at(path: String, before: &Value, after: &Value, ops: &mut Vec<PatchOp>) {
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => diff_objects(&path, b, a, ops),
        _ if before == after => {}
        _ => ops.push(PatchOp::Replace { path, value: after.clone() }),
    }
}

fn diff_objects(
    path: &str,
    before: &Map<String, Value>,
    after: &Map<String, Value>,
    ops: &mut Vec<PatchOp>,
) {
    for (key, old) in before {
        let child = registry_core::pointer(path, key);
        match after.get(key) {
            Some(new) => diff_at(child, old, new, ops),
            None => ops.push(PatchOp::Remove { path: child }),
        }
    }
    for (key, new) in after {
        if !before.contains_key(key) {
            ops.push(PatchOp::Add { path: registry_core::pointer(path, key), value: new.clone() });
        }
    }
}

/// `value` without the server-managed members.
fn without_server_members(mut value: Value) -> Value {
    if let Some(object) = value.as_object_mut() {
        for member in SERVER_MEMBERS {
            object.remove(member);
        }
    }
    value
}

/// The client-visible JSON of a definition without its server-managed members (secrets
/// are never in it).
pub fn content_json(definition: &Definition) -> Value {
    let value = match definition {
        Definition::Agent(a) => serde_json::to_value(a),
        Definition::Tool(t) => serde_json::to_value(t),
    };
    without_server_members(value.unwrap_or(Value::Null))
}

/// The JSON pointers a write from `before` to `after` changes (the members of the one
/// that exists when the other does not), sorted; never a value.
pub fn changed_pointers(before: Option<&Definition>, after: Option<&Definition>) -> Vec<String> {
    changed_pointers_json(before.map(content_json), after.map(content_json))
}

/// [`changed_pointers`] of the client JSON forms of two definitions (server members are
/// left out here).
pub fn changed_pointers_json(before: Option<Value>, after: Option<Value>) -> Vec<String> {
    let empty = || Value::Object(Map::new());
    let before = before.map_or_else(empty, without_server_members);
    let after = after.map_or_else(empty, without_server_members);
    let mut pointers: Vec<String> =
        diff(&before, &after).into_iter().map(|op| op.path().to_owned()).collect();
    pointers.sort();
    pointers
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn diff_reports_add_remove_replace_with_escaped_keys() {
        let before = json!({"a": 1, "b": {"c": [1, 2], "x/y": true}, "gone": null});
        let after = json!({"a": 1, "b": {"c": [1, 3], "x/y": false, "n~": 1}});
        let ops = serde_json::to_value(diff(&before, &after)).ok();
        assert_eq!(
            ops,
            Some(json!([
                {"op": "replace", "path": "/b/c", "value": [1, 3]},
                {"op": "replace", "path": "/b/x~1y", "value": false},
                {"op": "add", "path": "/b/n~0", "value": 1},
                {"op": "remove", "path": "/gone"},
            ]))
        );
        assert!(diff(&before, &before).is_empty());
        assert_eq!(
            diff(&json!(1), &json!("1")),
            vec![PatchOp::Replace { path: String::new(), value: json!("1") }]
        );
    }
}
