//! The response to a successful invocation, written straight from the event the fast reader
//! accepted: the JSON text [`crate::ResponseBuilder`] and `serde_json` would give for it,
//! without building the owned response (no copies of the echoed names and attributes, no
//! maps) and without serde's writer, whose string escaping was a fifth of an invocation.
//!
//! The text is handed to `lambda_runtime` as a [`RawValue`] without being parsed again
//! (decision 54): every string the event gives is plain ([`Plain`]), and the handler's result
//! is written as a JSON string by [`push_escaped`], so the text is one JSON object by
//! construction. Debug builds (every test) parse it again to check.

use std::fmt::Write as _;

use serde_json::value::RawValue;

use crate::builder::status_of;
use crate::limit::MAX_RESPONSE_BYTES;
use crate::parse::FormView;
use crate::response::TEXT;
use crate::scan::{Plain, plain_run};

/// What the fixed parts of the longest response (the API form) take, keys and punctuation.
const FIXED: usize = 160;

/// The success response to `event` whose body is `text` (a handler result's JSON that is
/// not a JSON string), as JSON text; `None` over [`MAX_RESPONSE_BYTES`], where the builder
/// cuts the body. The event's attributes are as [`crate::scan::read`] gives them: sorted,
/// each key once, as the response's maps hold them. Fields in `ActionGroupResponse`'s
/// order, empty attribute maps left out, as serde writes it.
pub(crate) fn success(event: &Plain<'_>, text: &str) -> Option<Box<RawValue>> {
    let attributes =
        |a: &[(&str, &str)]| a.iter().map(|(k, v)| k.len() + v.len() + 6).sum::<usize>();
    let mut out = String::with_capacity(
        FIXED
            + event.message_version.len()
            + event.action_group.len()
            + match event.form {
                FormView::Function(function) => function.len(),
                FormView::Api { api_path, http_method } => {
                    api_path.len() + http_method.len() + event.content_type().len()
                }
            }
            + text.len() * 5 / 4
            + attributes(&event.session_attributes)
            + attributes(&event.prompt_session_attributes),
    );
    out.push_str(r#"{"messageVersion":""#);
    out.push_str(event.message_version);
    out.push_str(r#"","response":{"actionGroup":""#);
    out.push_str(event.action_group);
    let content_type = match event.form {
        FormView::Function(function) => {
            out.push_str(r#"","function":""#);
            out.push_str(function);
            out.push_str(r#"","functionResponse":{"responseBody":{""#);
            TEXT
        }
        FormView::Api { api_path, http_method } => {
            out.push_str(r#"","apiPath":""#);
            out.push_str(api_path);
            out.push_str(r#"","httpMethod":""#);
            out.push_str(http_method);
            write!(out, r#"","httpStatusCode":{},"responseBody":{{""#, status_of(None)).ok()?;
            event.content_type()
        }
    };
    out.push_str(content_type);
    out.push_str(r#"":{"body":""#);
    push_escaped(&mut out, text)?;
    out.push_str(match event.form {
        FormView::Function(_) => r#""}}}}"#,
        FormView::Api { .. } => r#""}}}"#,
    });
    push_attributes(&mut out, "sessionAttributes", &event.session_attributes);
    push_attributes(&mut out, "promptSessionAttributes", &event.prompt_session_attributes);
    out.push('}');
    if out.len() > MAX_RESPONSE_BYTES {
        return None;
    }
    // SAFETY: `out` is one JSON object without surrounding whitespace: its keys and
    // punctuation are fixed, the strings between quotes are plain (`Plain`) or escaped by
    // `push_escaped`, and the status is a number. `from_string_unchecked` parses it again in
    // debug builds, and `tests` compare it with serde's text for any event and result.
    #[allow(unsafe_code)]
    let raw = unsafe { RawValue::from_string_unchecked(out) };
    Some(raw)
}

/// `,"<name>":{"<key>":"<value>",...}` unless `attributes` is empty; keys and values plain.
fn push_attributes(out: &mut String, name: &str, attributes: &[(&str, &str)]) {
    if attributes.is_empty() {
        return;
    }
    out.push_str(",\"");
    out.push_str(name);
    out.push_str("\":{");
    for (i, (key, value)) in attributes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        out.push_str(key);
        out.push_str("\":\"");
        out.push_str(value);
        out.push('"');
    }
    out.push('}');
}

/// `text` as the inside of a JSON string, escaped as `serde_json` escapes it.
fn push_escaped(out: &mut String, text: &str) -> Option<()> {
    let mut rest = text;
    loop {
        let (plain, tail) = rest.split_at_checked(plain_run(rest.as_bytes()))?;
        out.push_str(plain);
        let Some(&stop) = tail.as_bytes().first() else { return Some(()) };
        match stop {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            control => write!(out, "\\u{control:04x}").ok()?,
        }
        rest = tail.get(1..)?;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;
    use serde::de::IgnoredAny;
    use serde_json::{Value, json};

    use crate::error::ToolError;
    use crate::handle::{handle_body, handle_body_raw};
    use crate::limit::MAX_RESPONSE_BYTES;
    use crate::scan::tests::{any_string, event, plain};

    /// What a handler returns: a JSON value (strings, numbers, objects...), a tool error,
    /// or a panic.
    fn result() -> impl Strategy<Value = Option<Result<Value, String>>> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            any_string().prop_map(Value::from),
        ];
        let value = leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map(any_string(), inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        });
        prop::option::of(prop_oneof![value.prop_map(Ok), any_string().prop_map(Err)])
    }

    /// The text `handle_body_raw` gives equals `handle_body`'s response serialized.
    fn same(body: &[u8], result: &Option<Result<Value, String>>) -> Result<(), TestCaseError> {
        let handler = |_: IgnoredAny| match result.clone() {
            Some(Ok(value)) => Ok(value),
            Some(Err(message)) => Err(ToolError::Reply(message)),
            None => panic!("the handler panicked"),
        };
        let raw = handle_body_raw(body, handler).unwrap();
        let built = serde_json::to_string(&handle_body(body, handler)).unwrap();
        prop_assert_eq!(raw.get(), built.as_str());
        Ok(())
    }

    proptest! {
        #[test]
        fn text_is_escaped_as_serde_escapes_it(
            chars in prop::collection::vec(prop_oneof![
                Just('"'), Just('\\'), (0u8..0x20).prop_map(char::from), any::<char>(),
            ], 0..24)
        ) {
            let text = String::from_iter(chars);
            let mut out = String::from('"');
            super::push_escaped(&mut out, &text).unwrap();
            out.push('"');
            prop_assert_eq!(out, serde_json::to_string(&text).unwrap());
        }

        #[test]
        fn the_written_response_is_the_built_one(
            e in event(plain().boxed()), result in result(), pretty in any::<bool>(),
        ) {
            let text = if pretty { serde_json::to_string_pretty(&e) } else { serde_json::to_string(&e) };
            same(text.unwrap().as_bytes(), &result)?;
        }

        #[test]
        fn any_event_is_answered_as_the_builder_answers_it(
            e in event(any_string().boxed()), result in result(),
            cut in any::<prop::sample::Index>(), byte in any::<u8>(),
        ) {
            let text = serde_json::to_string(&e).unwrap();
            same(text.as_bytes(), &result)?;
            let at = cut.index(text.len() + 1);
            let mut damaged = text.as_bytes()[..at].to_vec();
            damaged.push(byte);
            same(&damaged, &result)?;
        }
    }

    #[test]
    fn a_plain_success_is_written_straight_from_the_event() {
        let text = r#"{"messageVersion":"1.0","actionGroup":"units","apiPath":"/convert",
            "httpMethod":"POST","requestBody":{"content":{"text/plain":{"properties":[]}}},
            "parameters":[],"sessionAttributes":{"u":"1","a":"2"},"promptSessionAttributes":{}}"#;
        let view = crate::scan::read(text).unwrap();
        let raw = super::success(&view, r#"{"miles":7.7}"#).unwrap();
        let expected = json!({
            "messageVersion": "1.0",
            "response": {"actionGroup": "units", "apiPath": "/convert", "httpMethod": "POST",
                "httpStatusCode": 200,
                "responseBody": {"text/plain": {"body": "{\"miles\":7.7}"}}},
            "sessionAttributes": {"a": "2", "u": "1"},
        });
        assert_eq!(raw.get(), expected.to_string());
    }

    #[test]
    fn a_response_over_the_limit_is_cut_as_the_builder_cuts_it() {
        let text = r#"{"actionGroup":"g","function":"f"}"#;
        let view = crate::scan::read(text).unwrap();
        let long = "x".repeat(MAX_RESPONSE_BYTES);
        assert!(super::success(&view, &long).is_none());
        let answer = |_: IgnoredAny| Ok::<_, ToolError>(vec![long.as_str()]);
        let raw = handle_body_raw(text.as_bytes(), answer).unwrap();
        assert!(raw.get().len() <= MAX_RESPONSE_BYTES);
        assert!(raw.get().contains("[truncated"));
        assert_eq!(
            raw.get(),
            serde_json::to_string(&handle_body(text.as_bytes(), answer)).unwrap()
        );
    }
}
