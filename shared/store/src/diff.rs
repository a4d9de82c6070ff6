//! Differences between two JSON documents as RFC 6902 operations, and the changed
//! fields of a definition write as JSON pointers.

use json_patch::PatchOperation;
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

/// The operations turning `before` into `after` (`json_patch::diff`), arrays replaced
/// whole: every change inside an array both documents hold at one place is one
/// `replace` of that array.
pub fn diff(before: &Value, after: &Value) -> Vec<PatchOp> {
    let mut ops: Vec<PatchOp> = Vec::new();
    for op in json_patch::diff(before, after).0 {
        let op = match outer_array(before, after, op.path()) {
            Some(path) if ops.last().is_some_and(|last| last.path() == path) => continue,
            Some(path) => {
                let value = after.pointer(&path).cloned().unwrap_or(Value::Null);
                PatchOp::Replace { path, value }
            }
            None => match op {
                PatchOperation::Add(add) => {
                    PatchOp::Add { path: add.path.to_string(), value: add.value }
                }
                PatchOperation::Remove(remove) => PatchOp::Remove { path: remove.path.to_string() },
                PatchOperation::Replace(replace) => {
                    PatchOp::Replace { path: replace.path.to_string(), value: replace.value }
                }
                // `diff` writes no move, copy or test.
                PatchOperation::Move(_) | PatchOperation::Copy(_) | PatchOperation::Test(_) => {
                    continue;
                }
            },
        };
        ops.push(op);
    }
    ops
}

/// The pointer of the outermost array both documents hold on the way to `path`.
fn outer_array(
    before: &Value,
    after: &Value,
    path: &json_patch::jsonptr::Pointer,
) -> Option<String> {
    let (mut old, mut new) = (Some(before), Some(after));
    let mut at = String::new();
    let mut tokens = path.tokens();
    loop {
        if old.is_some_and(Value::is_array) && new.is_some_and(Value::is_array) {
            return Some(at);
        }
        let token = tokens.next()?;
        let key = token.decoded();
        old = old.and_then(|v| v.get(key.as_ref()));
        new = new.and_then(|v| v.get(key.as_ref()));
        at = registry_core::pointer(&at, &key);
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
        let after = json!({"a": 1, "b": {"c": [1, 3], "n~": 1, "x/y": false}});
        let ops = serde_json::to_value(diff(&before, &after)).ok();
        assert_eq!(
            ops,
            Some(json!([
                {"op": "replace", "path": "/b/c", "value": [1, 3]},
                {"op": "add", "path": "/b/n~0", "value": 1},
                {"op": "replace", "path": "/b/x~1y", "value": false},
                {"op": "remove", "path": "/gone"},
            ]))
        );
        assert!(diff(&before, &before).is_empty());
        // Arrays are replaced whole, however deep the change inside them.
        let (old, new) = (json!({"l": [[1], {"k": 1}]}), json!({"l": [[2], {"k": 2}, 3]}));
        assert_eq!(
            diff(&old, &new),
            vec![PatchOp::Replace { path: "/l".into(), value: new["l"].clone() }]
        );
        assert_eq!(
            diff(&json!([1]), &json!([])),
            vec![PatchOp::Replace { path: String::new(), value: json!([]) }]
        );
        assert_eq!(
            diff(&json!(1), &json!("1")),
            vec![PatchOp::Replace { path: String::new(), value: json!("1") }]
        );
    }
}
