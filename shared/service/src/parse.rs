//! Turns a JSON value into a typed definition, locating type errors by JSON Pointer.
//!
//! This is the one place where serde's messages become the messages of violations:
//! they are reworded in the API's terms ([`api_message`]): what was expected as a JSON
//! shape, what came as its JSON type with at most a short excerpt, never the value of a
//! secret member, never a Rust type name.

use registry_core::{BedrockSettings, OrchestrationSettings, ServerFields, Violation, pointer};
use registry_types::{excerpt, quote};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A failed deserialization with where it failed.
type PathError = serde_path_to_error::Error<serde_json::Error>;

/// Deserializes `value` into `T`; a type error becomes a violation whose path points
/// at the offending value (or at the missing field).
pub fn from_json<T: DeserializeOwned>(value: Value) -> Result<T, Vec<Violation>> {
    deserialize(value).map_err(|err| vec![err.violation])
}

/// Why a JSON value is not a `T` ([`deserialize`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeError {
    /// Where and what, in the API's terms.
    pub violation: Violation,
    /// The value at the path is a string where another type (a number, a boolean, ...)
    /// was expected.
    pub string_instead: bool,
}

/// [`from_json`] with what the violation alone does not say.
pub fn deserialize<T: DeserializeOwned>(value: Value) -> Result<T, TypeError> {
    serde_path_to_error::deserialize(&value).map_err(|err: PathError| {
        let mut path = to_pointer(err.path());
        let message = clean(&err.inner().to_string());
        // An error inside a flattened struct surfaces at the object holding it; reading
        // the flattened structs alone locates it (when they find that same error).
        if let Some(inner) = value.pointer(&path).and_then(|at| flattened_error(at, &message)) {
            path.push_str(&to_pointer(inner.path()));
        }
        if let Some(field) = missing_field(&message) {
            path = pointer(&path, field);
        }
        let at = value.pointer(&path);
        let string_instead =
            message.starts_with("invalid type: string ") && at.is_some_and(Value::is_string);
        let message = api_message(&message, at, &path);
        TypeError { violation: Violation { path, message }, string_instead }
    })
}

/// The first error of the structs flattened into definitions, read from `object` alone
/// (each ignores the members it does not have), when it is the error `message` says.
fn flattened_error(object: &Value, message: &str) -> Option<PathError> {
    fn read<T: DeserializeOwned>(object: &Value, message: &str) -> Option<PathError> {
        let err = serde_path_to_error::deserialize::<_, T>(object).err()?;
        (clean(&err.inner().to_string()) == message).then_some(err)
    }
    if !object.is_object() {
        return None;
    }
    read::<BedrockSettings>(object, message)
        .or_else(|| read::<OrchestrationSettings>(object, message))
        .or_else(|| read::<ServerFields>(object, message))
}

/// Whether the member at `path` holds a secret (any member named `...secret...`, e.g.
/// `clientSecret`, and everything inside it): its value is never repeated.
fn is_secret(path: &str) -> bool {
    path.split('/').any(|token| token.to_ascii_lowercase().contains("secret"))
}

/// serde's `message` about the value `at` the pointer `path`, in the API's terms: the
/// expected JSON shape, what came as its JSON type with at most a short excerpt
/// ([`registry_types::MAX_EXCERPT_CHARS`]) and none for a secret, no Rust type names.
fn api_message(message: &str, at: Option<&Value>, path: &str) -> String {
    let secret = is_secret(path);
    let mismatch =
        message.strip_prefix("invalid type: ").or_else(|| message.strip_prefix("invalid value: "));
    if let Some((found, expected)) = mismatch.and_then(|m| m.rsplit_once(", expected ")) {
        return format!("expected {}, got {}", shape(expected), got(found, at, secret));
    }
    if let Some((length, expected)) =
        message.strip_prefix("invalid length ").and_then(|m| m.split_once(", expected "))
    {
        return format!("expected {}, got a list of length {}", shape(expected), excerpt(length));
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (name, allowed) = named(rest);
        return format!("unknown field `{}`; {allowed}", excerpt(name));
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (name, allowed) = named(rest);
        let name = if secret { String::new() } else { format!(" {}", quote(name)) };
        return format!("unknown value{name}: {allowed}");
    }
    if message.starts_with("missing field `") || message.starts_with("duplicate field `") {
        return excerpt(message).into_owned();
    }
    if message.starts_with("data did not match any variant of untagged enum ") {
        return "matches none of the accepted shapes".to_owned();
    }
    if secret || message.contains("::") {
        return "invalid value".to_owned();
    }
    excerpt(message).into_owned()
}

/// serde's "`name`, expected one of ..." (after the opening backtick): the name, and what
/// follows it (the allowed names, which are the API's own).
fn named(rest: &str) -> (&str, &str) {
    let end = rest.rfind("`, expected ").or_else(|| rest.rfind("`, there are no "));
    match end {
        Some(end) => (&rest[..end], &rest[end + 3..]),
        None => (rest.trim_end_matches('`'), "see the documentation"),
    }
}

/// serde's "expected" text as a JSON shape.
fn shape(expected: &str) -> String {
    let integers = [
        ("u8", "0 to 255"),
        ("u16", "0 to 65535"),
        ("u32", "0 to 4294967295"),
        ("u64", "0 to 18446744073709551615"),
        ("usize", "0 to 18446744073709551615"),
        ("i8", "-128 to 127"),
        ("i16", "-32768 to 32767"),
        ("i32", "-2147483648 to 2147483647"),
        ("i64", "-9223372036854775808 to 9223372036854775807"),
    ];
    if let Some((_, range)) = integers.iter().find(|(ty, _)| *ty == expected) {
        return format!("an integer from {range}");
    }
    let plain = match expected {
        "a string" | "a borrowed string" | "string" => "a string",
        "a boolean" => "a boolean",
        "f32" | "f64" => "a number",
        "a sequence" => "an array",
        "a map" => "an object",
        "string or map" => "a string or an object",
        "a character" => "a string of one character",
        "unit" | "option" => "null",
        "variant identifier" | "variant index" => "one of the documented values",
        "field identifier" => "a member name",
        _ => "",
    };
    if !plain.is_empty() {
        return plain.to_owned();
    }
    let tagged = ["internally tagged enum ", "adjacently tagged enum ", "struct "];
    if tagged.iter().any(|p| expected.starts_with(p)) {
        return "an object".to_owned();
    }
    if expected.starts_with("tuple struct ")
        || expected.starts_with("a tuple of size ")
        || expected.starts_with("an array of length ")
    {
        return "an array".to_owned();
    }
    if expected.starts_with("unit struct ") {
        return "null".to_owned();
    }
    if expected.starts_with("enum ") || expected.contains("::") {
        return "one of the documented values".to_owned();
    }
    excerpt(expected).into_owned()
}

/// serde's description of an unexpected value as its JSON type, with the value `at` the
/// pointer (a string: quoted and cut; a number or boolean: as it is) unless `secret`.
fn got(found: &str, at: Option<&Value>, secret: bool) -> String {
    let kind = match found.split_once(' ').map_or(found, |(kind, _)| kind) {
        "string" | "character" => "a string",
        "integer" | "floating" => "a number",
        "boolean" => "a boolean",
        "sequence" => "an array",
        "map" => "an object",
        "unit" | "Option" => "null",
        _ => "another value",
    };
    match at {
        Some(Value::String(s)) if !secret && kind == "a string" => {
            format!("the string {}", quote(s))
        }
        Some(Value::Number(n)) if !secret && kind == "a number" => {
            excerpt(&n.to_string()).into_owned()
        }
        Some(Value::Bool(b)) if !secret && kind == "a boolean" => b.to_string(),
        _ => kind.to_owned(),
    }
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

    /// Every message of `err`, with its path.
    fn said(err: &[Violation]) -> String {
        err.iter().map(|v| format!("{} {}", v.path, v.message)).collect::<Vec<_>>().join("; ")
    }

    #[test]
    fn messages_name_the_shape_never_a_secret_a_long_value_or_a_rust_type() {
        let long = "A".repeat(20_000);
        let mcp = |auth: Value| json!({"executionType": "mcp", "url": "https://mcp.example.com", "auth": auth});
        let cases = [
            (
                from_json::<ToolDefinition>(mcp(
                    json!({"clientId": "c", "clientSecret": ["s3cr3t"],
                    "tokenUrl": "https://auth.example.com/token"}),
                ))
                .map(|_| ()),
                "/auth/clientSecret expected a string, got an array",
            ),
            (
                from_json::<ToolDefinition>(mcp(json!({"clientId": "c", "clientSecret": 735_123,
                    "tokenUrl": "https://auth.example.com/token"})))
                .map(|_| ()),
                "/auth/clientSecret expected a string, got a number",
            ),
            (
                from_json::<ToolDefinition>(mcp(
                    json!({"clientId": "c", "clientSecret": {"s3cr3t": 1},
                    "tokenUrl": "https://auth.example.com/token"}),
                ))
                .map(|_| ()),
                "/auth/clientSecret expected a string, got an object",
            ),
            (
                from_json::<ToolDefinition>(json!({"executionType": ["lambda"]})).map(|_| ()),
                "/executionType expected a string or an object, got an array",
            ),
            (
                from_json::<AgentDefinition>(
                    json!({"basePrompt": "p", "toolIds": [], "idleSessionTTLInSeconds": 5e9}),
                )
                .map(|_| ()),
                "/idleSessionTTLInSeconds expected an integer from 0 to 4294967295, got 5000000000.0",
            ),
        ];
        for (result, expected) in cases {
            assert_eq!(said(&result.unwrap_err()), expected);
        }
        use registry_access::RequestContext;
        let context = json!({"user": {"userId": "u", "foo": long}});
        let err = from_json::<RequestContext>(context).unwrap_err();
        assert_eq!(
            said(&err),
            "/user/foo unknown field `foo`; expected one of `userId`, `userType`, `email`, `roles`"
        );
        // Not a definition: nothing is read as one of its flattened settings.
        let context = json!({"user": {"userId": "u", "guardrailConfiguration": {"x": long}}});
        let err = from_json::<RequestContext>(context).unwrap_err();
        assert_eq!(err[0].path, "/user/guardrailConfiguration", "{err:?}");
        // Long values are cut wherever they are.
        let cut = "A".repeat(registry_types::MAX_EXCERPT_CHARS);
        for (err, expected) in [
            (
                from_json::<RequestContext>(json!({"user": {"userId": [long]}})).unwrap_err(),
                "/user/userId expected a string, got an array".to_owned(),
            ),
            (
                from_json::<RequestContext>(json!({"request": {"time": long}})).unwrap_err(),
                "/request/time input contains invalid characters".to_owned(),
            ),
            (
                from_json::<AgentDefinition>(json!({"basePrompt": "p", "toolIds": long}))
                    .unwrap_err(),
                format!("/toolIds expected an array, got the string \"{cut}\"..."),
            ),
            (
                from_json::<AgentDefinition>(
                    json!({"basePrompt": "p", "toolIds": [], "lifecycle": {"status": long}}),
                )
                .unwrap_err(),
                format!("/lifecycle/status unknown value \"{cut}\"...: expected one of"),
            ),
        ] {
            assert!(said(&err).starts_with(&expected), "{}", said(&err));
            assert!(said(&err).len() < 400, "{}", said(&err));
        }
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
