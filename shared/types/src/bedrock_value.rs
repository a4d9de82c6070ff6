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

use crate::unquoted_list;

/// Decodes one parameter value sent by Bedrock as text, by its declared Bedrock type;
/// `Err` says what was expected and quotes what came.
pub fn decode_bedrock_value(kind: &str, value: &str) -> Result<Value, String> {
    match kind {
        "number" => number(value),
        "integer" => integer(value),
        "boolean" => boolean(value),
        "array" => array(value),
        "object" => object(value),
        _ => Ok(Value::String(value.to_string())),
    }
}

/// `value` quoted for a message, cut after 80 characters.
pub fn quote(value: &str) -> String {
    const MAX: usize = 80;
    match value.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{:?}...", &value[..cut]),
        None => format!("{value:?}"),
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

fn number(s: &str) -> Result<Value, String> {
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
            _ => Err(format!("expected a finite number, got {}", quote(s))),
        },
        None => Err(format!("expected a number, got {}", quote(s))),
    }
}

fn integer(s: &str) -> Result<Value, String> {
    if !is_integer_literal(s) {
        return Err(format!("expected an integer, got {}", quote(s)));
    }
    parse_integer(s)
        .map(Value::Number)
        .ok_or_else(|| format!("integer out of range, got {}", quote(s)))
}

fn boolean(s: &str) -> Result<Value, String> {
    if s.eq_ignore_ascii_case("true") {
        Ok(Value::Bool(true))
    } else if s.eq_ignore_ascii_case("false") {
        Ok(Value::Bool(false))
    } else {
        Err(format!("expected true or false, got {}", quote(s)))
    }
}

fn array(s: &str) -> Result<Value, String> {
    if let Ok(v @ Value::Array(_)) = serde_json::from_str::<Value>(s) {
        return Ok(v);
    }
    let t = s.trim();
    let inner = t.strip_prefix('[').and_then(|r| r.strip_suffix(']'));
    match inner {
        Some(inner) => match unquoted_list::split(inner) {
            Ok(items) => Ok(Value::Array(items.into_iter().map(Value::String).collect())),
            Err(index) => Err(format!("empty element {index} in list {}", quote(s))),
        },
        None => Err(format!("expected a JSON array or a [a, b] list, got {}", quote(s))),
    }
}

fn object(s: &str) -> Result<Value, String> {
    match serde_json::from_str::<Value>(s) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(format!("expected a JSON object, got {}", quote(s))),
        Err(e) => Err(format!("expected a JSON object, got {} ({e})", quote(s))),
    }
}
