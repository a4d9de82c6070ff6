//! Turns a JSON value into a typed definition, locating type errors by JSON Pointer.

use registry_core::{BedrockSettings, OrchestrationSettings, ServerFields, Violation, pointer};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A failed deserialization with where it failed.
type PathError = serde_path_to_error::Error<serde_json::Error>;

/// Deserializes `value` into `T`; a type error becomes a violation whose path points
/// at the offending value (or at the missing field).
pub fn from_json<T: DeserializeOwned>(value: Value) -> Result<T, Vec<Violation>> {
    serde_path_to_error::deserialize(&value).map_err(|err: PathError| {
        let mut path = to_pointer(err.path());
        // An error inside a flattened struct surfaces at the object holding it; reading
        // the flattened structs alone locates it.
        let inner = value.pointer(&path).and_then(flattened_error);
        let err = match inner {
            Some(inner) => {
                path.push_str(&to_pointer(inner.path()));
                inner
            }
            None => err,
        };
        let message = err.inner().to_string();
        if let Some(field) = missing_field(&message) {
            path = pointer(&path, field);
        }
        vec![Violation { path, message: clean(&message) }]
    })
}

/// The first error of the structs flattened into definitions, read from `object` alone
/// (each ignores the members it does not have).
fn flattened_error(object: &Value) -> Option<PathError> {
    fn read<T: DeserializeOwned>(object: &Value) -> Option<PathError> {
        serde_path_to_error::deserialize::<_, T>(object).err()
    }
    read::<BedrockSettings>(object)
        .or_else(|| read::<OrchestrationSettings>(object))
        .or_else(|| read::<ServerFields>(object))
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
    fn type_errors_inside_flattened_settings_carry_pointers() {
        for (body, path) in [
            (json!({"idleSessionTTLInSeconds": "600"}), "/idleSessionTTLInSeconds"),
            (
                json!({"guardrailConfiguration": {"guardrailIdentifier": "g", "guardrailVersion": 1}}),
                "/guardrailConfiguration/guardrailVersion",
            ),
            (
                json!({"guardrailConfiguration": {"guardrailIdentifier": "g"}}),
                "/guardrailConfiguration/guardrailVersion",
            ),
            (
                json!({"promptOverrideConfiguration": {"promptConfigurations": [{"promptType": "X"}]}}),
                "/promptOverrideConfiguration/promptConfigurations/0/promptType",
            ),
            (json!({"orchestrationType": 5}), "/orchestrationType"),
            (json!({"version": "three"}), "/version"),
        ] {
            let err = from_json::<AgentDefinition>(body.clone()).unwrap_err();
            assert_eq!(err[0].path, path, "{body}: {err:?}");
        }
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
