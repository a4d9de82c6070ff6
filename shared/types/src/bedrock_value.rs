//! The one strict decoder of Bedrock's string parameter values, used by the
//! action-group crate (events) and by [`crate::decode_bedrock_arguments`].
//!
//! | type | accepted | result |
//! | --- | --- | --- |
//! | `string` | anything | the string, unchanged |
//! | `number` | a decimal literal (`12`, `-1.5`, `2e3`) that is finite, no whitespace | a JSON number (integer when the literal is one within `i64`/`u64`) |
//! | `integer` | `[+-]?[0-9]+` within `i64`/`u64` | a JSON integer |
//! | `boolean` | `true` / `false`, any letter case | a JSON boolean |
//! | `array` | a JSON array, or Bedrock's unquoted `[a, b]` form (items become strings) | a JSON array |
//! | `object` | a JSON object | the object |
//! | anything else | anything | the string, unchanged |

use serde_json::{Number, Value};

use crate::excerpt::quote;
use crate::unquoted_list;

/// Why a Bedrock parameter value does not decode as its declared type; each variant
/// carries the value quoted (shortened) as the message shows it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BedrockValueError {
    /// A `number` that is not a decimal literal.
    #[error("expected a number, got {0}")]
    NotNumber(String),
    /// A `number` literal outside the finite range.
    #[error("expected a finite number, got {0}")]
    NotFinite(String),
    /// An `integer` that is not `[+-]?[0-9]+`.
    #[error("expected an integer, got {0}")]
    NotInteger(String),
    /// An `integer` outside `i64`/`u64`.
    #[error("integer out of range, got {0}")]
    OutOfRange(String),
    /// A `boolean` other than `true`/`false`.
    #[error("expected true or false, got {0}")]
    NotBoolean(String),
    /// An `array` in the unquoted form with an empty element (its index).
    #[error("empty element {index} in list {list}")]
    EmptyElement {
        /// The empty element's index.
        index: usize,
        /// The list, quoted.
        list: String,
    },
    /// An `array` in neither form.
    #[error("expected a JSON array or a [a, b] list, got {0}")]
    NotArray(String),
    /// An `object` that is JSON but not an object.
    #[error("expected a JSON object, got {0}")]
    NotObject(String),
    /// An `object` that is not JSON.
    #[error("expected a JSON object, got {text} ({reason})")]
    ObjectSyntax {
        /// The value, quoted.
        text: String,
        /// The JSON parser's message.
        reason: String,
    },
    /// A JSON-encoded parameter whose text is not JSON (the parser's message).
    #[error("expected a JSON-encoded value (the parameter carries JSON text): {0}")]
    NotJson(String),
}

/// Decodes one parameter value sent by Bedrock as text, by its declared Bedrock type;
/// `Err` says what was expected and quotes what came.
pub fn decode_bedrock_value(kind: &str, value: &str) -> Result<Value, BedrockValueError> {
    match decoder(kind) {
        Some(decode) => decode(value),
        None => Ok(Value::String(value.to_string())),
    }
}

/// Whether [`decode_bedrock_value`] gives values of this Bedrock type back as the same string.
pub fn bedrock_value_is_text(kind: &str) -> bool {
    decoder(kind).is_none()
}

/// Decodes one value of one Bedrock type.
type Decoder = fn(&str) -> Result<Value, BedrockValueError>;

/// The decoder of a Bedrock type whose values are not kept as text.
fn decoder(kind: &str) -> Option<Decoder> {
    match kind {
        "number" => Some(number),
        "integer" => Some(integer),
        "boolean" => Some(boolean),
        "array" => Some(array),
        "object" => Some(object),
        _ => None,
    }
}

fn is_integer_literal(s: &str) -> bool {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn parse_integer(s: &str) -> Option<Number> {
    let unsigned = s.strip_prefix('+').unwrap_or(s);
    if let Ok(i) = unsigned.parse::<i64>() {
        return Some(Number::from(i));
    }
    unsigned.parse::<u64>().ok().map(Number::from)
}

fn number(s: &str) -> Result<Value, BedrockValueError> {
    if let Some(n) = is_integer_literal(s).then(|| parse_integer(s)).flatten() {
        return Ok(Value::Number(n));
    }
    // Only plain decimal syntax; rejects `inf`, `NaN`, `0x10`, `12abc`, whitespace.
    let plain = !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
        && s.bytes().any(|b| b.is_ascii_digit());
    let parsed = if plain { s.parse::<f64>().ok() } else { None };
    match parsed {
        Some(f) => match Number::from_f64(f) {
            Some(n) if f.is_finite() => Ok(Value::Number(n)),
            _ => Err(BedrockValueError::NotFinite(quote(s))),
        },
        None => Err(BedrockValueError::NotNumber(quote(s))),
    }
}

fn integer(s: &str) -> Result<Value, BedrockValueError> {
    if !is_integer_literal(s) {
        return Err(BedrockValueError::NotInteger(quote(s)));
    }
    parse_integer(s).map(Value::Number).ok_or_else(|| BedrockValueError::OutOfRange(quote(s)))
}

fn boolean(s: &str) -> Result<Value, BedrockValueError> {
    if s.eq_ignore_ascii_case("true") {
        Ok(Value::Bool(true))
    } else if s.eq_ignore_ascii_case("false") {
        Ok(Value::Bool(false))
    } else {
        Err(BedrockValueError::NotBoolean(quote(s)))
    }
}

fn array(s: &str) -> Result<Value, BedrockValueError> {
    if may_be_json_array(s)
        && let Ok(v @ Value::Array(_)) = serde_json::from_str::<Value>(s)
    {
        return Ok(v);
    }
    let t = s.trim();
    let inner = t.strip_prefix('[').and_then(|r| r.strip_suffix(']'));
    match inner {
        Some(inner) => match unquoted_list::split(inner) {
            Ok(items) => Ok(Value::Array(items)),
            Err(index) => Err(BedrockValueError::EmptyElement { index, list: quote(s) }),
        },
        None => Err(BedrockValueError::NotArray(quote(s))),
    }
}

/// Whether `s` can parse as a JSON array: `[`, then `]` or a byte a JSON value starts with
/// (so `[road, trip]` goes straight to the unquoted form without a failed JSON parse).
fn may_be_json_array(s: &str) -> bool {
    const WS: [char; 4] = [' ', '\t', '\n', '\r'];
    let Some(rest) = s.trim_start_matches(WS).strip_prefix('[') else { return false };
    matches!(
        rest.trim_start_matches(WS).as_bytes().first(),
        Some(b']' | b'"' | b'[' | b'{' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n')
    )
}

fn object(s: &str) -> Result<Value, BedrockValueError> {
    match serde_json::from_str::<Value>(s) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(BedrockValueError::NotObject(quote(s))),
        Err(e) => Err(BedrockValueError::ObjectSyntax { text: quote(s), reason: e.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::may_be_json_array;

    /// The pre-check never turns away text that parses as a JSON array.
    fn agrees(s: &str) -> Result<(), TestCaseError> {
        if let Ok(Value::Array(_)) = serde_json::from_str::<Value>(s) {
            prop_assert!(may_be_json_array(s), "{s:?} parses as an array");
        }
        Ok(())
    }

    #[test]
    fn known_forms() {
        assert!(may_be_json_array(" [ 1, 2]"));
        assert!(may_be_json_array("[\n]"));
        assert!(may_be_json_array("[\"a\"]"));
        assert!(may_be_json_array("[true, x]"));
        assert!(!may_be_json_array("[road, trip]"));
        assert!(!may_be_json_array("road"));
        assert!(!may_be_json_array("[ 'a']"));
    }

    proptest! {
        #[test]
        fn json_arrays_pass_the_pre_check(
            items in prop::collection::vec(
                prop_oneof![
                    any::<i64>().prop_map(Value::from),
                    any::<f64>().prop_map(Value::from),
                    any::<bool>().prop_map(Value::from),
                    ".{0,6}".prop_map(Value::from),
                    Just(Value::Null),
                    Just(serde_json::json!({"a": [1]})),
                    Just(serde_json::json!([[]])),
                ],
                0..4,
            ),
            lead in "[ \t\n\r]{0,2}",
            inner in "[ \t\n\r]{0,2}",
        ) {
            let text = serde_json::to_string(&items).unwrap_or_default();
            let spaced = format!("{lead}[{inner}{}", text.strip_prefix('[').unwrap_or(&text));
            agrees(&spaced)?;
        }

        #[test]
        fn arbitrary_text_is_never_turned_away_wrongly(s in "[ \\[\\]\"a-z0-9,.{}:-]{0,12}") {
            agrees(&s)?;
        }
    }
}
