//! Turns a JSON value into a typed definition, locating type errors by JSON Pointer.

use registry_core::{Violation, pointer};
use serde::de::DeserializeOwned;

/// Deserializes `value` into `T`; a type error becomes a violation whose path points
/// at the offending value (or at the missing field).
pub fn from_json<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, Vec<Violation>> {
    serde_path_to_error::deserialize(value).map_err(|err| {
        let mut path = to_pointer(err.path());
        let message = err.inner().to_string();
        if let Some(field) = missing_field(&message) {
            path = pointer(&path, field);
        }
        vec![Violation { path, message: clean(&message) }]
    })
}

/// Converts a serde path (`toolIds[1].name`) to a JSON Pointer (`/toolIds/1/name`).
pub fn to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out = pointer(&out, index),
            Segment::Map { key } => out = pointer(&out, key),
            Segment::Enum { variant } => out = pointer(&out, variant),
            Segment::Unknown => {}
        }
    }
    out
}

/// The field named by serde's "missing field `x`" message.
fn missing_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next()
}

/// Drops serde_json's " at line L column C" suffix, meaningless for a parsed value.
fn clean(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use registry_core::{AgentDefinition, ToolDefinition};
    use serde_json::json;

    #[test]
    fn type_errors_carry_pointers() {
        let err =
            from_json::<AgentDefinition>(json!({"basePrompt": "p", "toolIds": 5})).unwrap_err();
        assert_eq!(err[0].path, "/toolIds", "{err:?}");
        let err = from_json::<AgentDefinition>(json!({"basePrompt": "p", "toolIds": ["a", 5]}))
            .unwrap_err();
        assert_eq!(err[0].path, "/toolIds/1", "{err:?}");
        let err = from_json::<AgentDefinition>(
            json!({"basePrompt": "p", "toolIds": [], "rolloutPolicy": {"percentage": "x"}}),
        )
        .unwrap_err();
        assert_eq!(err[0].path, "/rolloutPolicy/percentage", "{err:?}");
    }

    #[test]
    fn missing_required_fields_are_named() {
        let err = from_json::<ToolDefinition>(json!({"toolId": "t"})).unwrap_err();
        assert_eq!(err[0].path, "/executionType", "{err:?}");
        let err =
            from_json::<ToolDefinition>(json!({"executionType": "mcp", "auth": {"clientId": "c"}}))
                .unwrap_err();
        assert_eq!(err[0].path, "/auth/tokenUrl", "{err:?}");
    }

    #[test]
    fn bad_enum_values_point_at_the_field() {
        let err = from_json::<AgentDefinition>(
            json!({"basePrompt": "p", "toolIds": [], "lifecycle": {"status": "zzz"}}),
        )
        .unwrap_err();
        assert_eq!(err[0].path, "/lifecycle/status", "{err:?}");
    }
}
