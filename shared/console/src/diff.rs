//! The difference between two JSON documents, member by member (JSON Pointer paths).

use std::collections::BTreeMap;

use serde_json::Value;

/// One member that differs.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// Where, as a JSON Pointer.
    pub path: String,
    /// The value before (absent: added).
    pub before: Option<Value>,
    /// The value after (absent: removed).
    pub after: Option<Value>,
}

/// Every leaf that differs between `before` and `after`, in path order.
pub fn diff(before: &Value, after: &Value) -> Vec<Change> {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    leaves(before, String::new(), &mut a);
    leaves(after, String::new(), &mut b);
    let mut paths: Vec<&String> = a.keys().chain(b.keys()).collect();
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .filter(|p| a.get(*p) != b.get(*p))
        .map(|p| Change { path: p.clone(), before: a.get(p).cloned(), after: b.get(p).cloned() })
        .collect()
}

/// Scalars and empty containers by pointer.
fn leaves(v: &Value, at: String, out: &mut BTreeMap<String, Value>) {
    match v {
        Value::Object(o) if !o.is_empty() => {
            for (k, child) in o {
                leaves(child, registry_core::pointer(&at, k), out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, child) in items.iter().enumerate() {
                leaves(child, format!("{at}/{i}"), out);
            }
        }
        leaf => {
            out.insert(at, leaf.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn changed_added_and_removed_members_are_listed_by_pointer() {
        let before = json!({"description": "old", "tags": {"a": "1"}, "ids": ["x"], "same": 1});
        let after = json!({"description": "new", "tags": {"b/c": "2"}, "ids": [], "same": 1});
        let changes = diff(&before, &after);
        let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, ["/description", "/ids", "/ids/0", "/tags/a", "/tags/b~1c"]);
        assert_eq!(changes[0].before, Some(json!("old")));
        assert_eq!(changes[0].after, Some(json!("new")));
        assert_eq!(changes[3].after, None);
    }
}
