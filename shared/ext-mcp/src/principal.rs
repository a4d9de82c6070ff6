//! Who is calling: read from the `metadata_context` the gateway's CEL expressions fill,
//! and the session from the forwarded `mcp-session-id` header.

use prost_types::value::Kind;
use prost_types::{Struct, Value as ProtoValue};
use registry_gateway::Caller;
use serde_json::{Map, Number, Value};

use crate::proto::McpHeader;

/// `metadata_context` keys holding the raw bearer token (the `Authorization` header's
/// value, with or without `Bearer `), in the order they are read.
pub const BEARER_KEYS: [&str; 2] = ["token", "authorization"];
/// The `metadata_context` key holding claims the gateway already validated (its `jwt`).
pub const CLAIMS_KEY: &str = "claims";
/// The forwarded header naming the MCP session (matched case-insensitively).
pub const SESSION_HEADER: &str = "mcp-session-id";

/// The principal found in one `metadata_context`, owned so it outlives the message.
#[derive(Debug, Clone, PartialEq)]
pub enum Principal {
    /// A bearer token (`token`, else `authorization`).
    Bearer(String),
    /// Validated claims (`claims`).
    Claims(Map<String, Value>),
    /// Neither: every call and every listed tool is denied.
    Anonymous,
}

impl Principal {
    /// The principal in `context`: the first of [`BEARER_KEYS`] holding a non-empty
    /// string, else [`CLAIMS_KEY`] holding a struct, else anonymous (a key of another
    /// type counts as absent).
    pub fn from_context(context: Option<&Struct>) -> Self {
        let Some(context) = context else { return Self::Anonymous };
        for key in BEARER_KEYS {
            if let Some(Kind::StringValue(token)) = kind(context, key)
                && !token.trim().is_empty()
            {
                return Self::Bearer(token.clone());
            }
        }
        match kind(context, CLAIMS_KEY) {
            Some(Kind::StructValue(claims)) => Self::Claims(to_json_object(claims)),
            _ => Self::Anonymous,
        }
    }

    /// The caller the gateway decision point takes.
    pub fn caller(&self) -> Caller<'_> {
        match self {
            Self::Bearer(token) => Caller::Bearer(token),
            Self::Claims(claims) => Caller::Claims(claims),
            Self::Anonymous => Caller::Anonymous,
        }
    }
}

fn kind<'a>(context: &'a Struct, key: &str) -> Option<&'a Kind> {
    context.fields.get(key).and_then(|v| v.kind.as_ref())
}

/// The value of the first [`SESSION_HEADER`] that is UTF-8 and not empty.
pub fn session_of(headers: &[McpHeader]) -> Option<&str> {
    headers
        .iter()
        .filter(|h| h.key.eq_ignore_ascii_case(SESSION_HEADER))
        .filter_map(|h| std::str::from_utf8(&h.value).ok())
        .map(str::trim)
        .find(|v| !v.is_empty())
}

/// A protobuf `Struct` as a JSON object (protobuf's decoder already bounds its depth).
fn to_json_object(value: &Struct) -> Map<String, Value> {
    value.fields.iter().map(|(k, v)| (k.clone(), to_json(v))).collect()
}

fn to_json(value: &ProtoValue) -> Value {
    match &value.kind {
        None | Some(Kind::NullValue(_)) => Value::Null,
        Some(Kind::BoolValue(b)) => Value::Bool(*b),
        Some(Kind::NumberValue(n)) => number(*n),
        Some(Kind::StringValue(s)) => Value::String(s.clone()),
        Some(Kind::StructValue(s)) => Value::Object(to_json_object(s)),
        Some(Kind::ListValue(l)) => Value::Array(l.values.iter().map(to_json).collect()),
    }
}

/// A protobuf number (always a double) as JSON: whole numbers within 2^53 as integers,
/// others as floats, NaN and infinities as null.
fn number(n: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if n.fract() == 0.0 && n.abs() < EXACT {
        #[allow(clippy::cast_possible_truncation)]
        return Value::Number(Number::from(n as i64));
    }
    Number::from_f64(n).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn string(s: &str) -> ProtoValue {
        ProtoValue { kind: Some(Kind::StringValue(s.into())) }
    }

    fn context(fields: &[(&str, ProtoValue)]) -> Struct {
        Struct { fields: fields.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect() }
    }

    #[test]
    fn bearer_before_claims_and_token_before_authorization() {
        let claims =
            ProtoValue { kind: Some(Kind::StructValue(context(&[("sub", string("ana"))]))) };
        let both = context(&[
            ("authorization", string("Bearer b")),
            ("token", string("a")),
            ("claims", claims.clone()),
        ]);
        assert_eq!(Principal::from_context(Some(&both)), Principal::Bearer("a".into()));
        let only_claims = context(&[("token", string(" ")), ("claims", claims)]);
        let mut expected = Map::new();
        expected.insert("sub".into(), Value::String("ana".into()));
        assert_eq!(Principal::from_context(Some(&only_claims)), Principal::Claims(expected));
    }

    #[test]
    fn nothing_usable_is_anonymous() {
        let wrong = context(&[("token", ProtoValue { kind: Some(Kind::NumberValue(1.0)) })]);
        assert_eq!(Principal::from_context(Some(&wrong)), Principal::Anonymous);
        assert_eq!(Principal::from_context(None), Principal::Anonymous);
        assert_eq!(
            Principal::from_context(Some(&Struct { fields: BTreeMap::new() })),
            Principal::Anonymous
        );
    }

    #[test]
    fn numbers_keep_integers() {
        assert_eq!(number(3.0), Value::from(3));
        assert_eq!(number(2.5), Value::from(2.5));
        assert_eq!(number(f64::NAN), Value::Null);
    }

    #[test]
    fn session_header_any_case_utf8_only() {
        let headers = vec![
            McpHeader { key: "Mcp-Session-Id".into(), value: vec![0xff] },
            McpHeader { key: "MCP-SESSION-ID".into(), value: b"s-1".to_vec() },
        ];
        assert_eq!(session_of(&headers), Some("s-1"));
        assert_eq!(session_of(&[]), None);
    }
}
