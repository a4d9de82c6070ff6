//! The response to a successful invocation, written straight from the event the fast reader
//! accepted: the JSON text [`crate::ResponseBuilder`] and `serde_json` would give for it,
//! without building the owned response (no copies of the echoed names and attributes, no
//! maps) and without serde's writer for the response itself, which was a fifth of an
//! invocation (its string escaping alone a tenth).
//!
//! The handler's result is serialized once, straight into the response as the body string
//! ([`Escaped`]). The text is handed to `lambda_runtime` as a [`RawValue`] without being
//! parsed again (decision 54): every string the event gives is plain ([`Plain`]) and the body
//! is escaped, so the text is one JSON object by construction. Debug builds (every test)
//! parse it again to check.

use std::io::{self, Write as _};

use serde::Serialize;
use serde_json::ser::{CharEscape, CompactFormatter, Formatter, Serializer};
use serde_json::value::RawValue;

use crate::builder::status_of;
use crate::limit::MAX_RESPONSE_BYTES;
use crate::parse::FormView;
use crate::response::TEXT;
use crate::scan::{Plain, plain_run};

/// Room for the fixed parts of the longest response (the API form) and a small result.
const ROOM: usize = 320;

/// Writes JSON as the inside of a JSON string: `serde_json`'s compact text, escaped as
/// `serde_json` escapes a string.
struct Escaped;

impl Formatter for Escaped {
    fn begin_string<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b"\\\"")
    }

    fn end_string<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b"\\\"")
    }

    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        char_escape: CharEscape,
    ) -> io::Result<()> {
        let mut escape = io::Cursor::new([0; 6]);
        CompactFormatter.write_char_escape(&mut escape, char_escape)?;
        let written = usize::try_from(escape.position()).unwrap_or_default();
        write_escaped(writer, escape.get_ref().get(..written).unwrap_or_default())
    }

    fn write_raw_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        write_escaped(writer, fragment.as_bytes())
    }
}

/// The success response to `event` whose handler returned `result`, as JSON text; `None`
/// when `result` is a JSON string (the builder writes its text unquoted), does not
/// serialize, or makes the response longer than [`MAX_RESPONSE_BYTES`] (the builder cuts the
/// body). The event's attributes are as [`crate::scan::read`] gives them: sorted, each key
/// once, as the response's maps hold them. Fields in `ActionGroupResponse`'s order, empty
/// attribute maps left out, as serde writes it.
pub(crate) fn success<R: Serialize>(event: &Plain<'_>, result: &R) -> Option<Box<RawValue>> {
    let mut out = Vec::with_capacity(ROOM);
    out.extend_from_slice(br#"{"messageVersion":""#);
    out.extend_from_slice(event.message_version.as_bytes());
    out.extend_from_slice(br#"","response":{"actionGroup":""#);
    out.extend_from_slice(event.action_group.as_bytes());
    let content_type = match event.form {
        FormView::Function(function) => {
            out.extend_from_slice(br#"","function":""#);
            out.extend_from_slice(function.as_bytes());
            out.extend_from_slice(br#"","functionResponse":{"responseBody":{""#);
            TEXT
        }
        FormView::Api { api_path, http_method } => {
            out.extend_from_slice(br#"","apiPath":""#);
            out.extend_from_slice(api_path.as_bytes());
            out.extend_from_slice(br#"","httpMethod":""#);
            out.extend_from_slice(http_method.as_bytes());
            write!(out, r#"","httpStatusCode":{},"responseBody":{{""#, status_of(None)).ok()?;
            event.content_type()
        }
    };
    out.extend_from_slice(content_type.as_bytes());
    out.extend_from_slice(br#"":{"body":""#);
    let body = out.len();
    result.serialize(&mut Serializer::with_formatter(&mut out, Escaped)).ok()?;
    if out.get(body..)?.starts_with(b"\\\"") {
        return None;
    }
    out.extend_from_slice(match event.form {
        FormView::Function(_) => br#""}}}}"#,
        FormView::Api { .. } => br#""}}}"#,
    });
    push_attributes(&mut out, "sessionAttributes", &event.session_attributes);
    push_attributes(&mut out, "promptSessionAttributes", &event.prompt_session_attributes);
    out.push(b'}');
    if out.len() > MAX_RESPONSE_BYTES {
        return None;
    }
    let text = String::from_utf8(out).ok()?;
    // SAFETY: `text` is one JSON object without surrounding whitespace: its keys and
    // punctuation are fixed, the strings between quotes are plain (`Plain`) or the result's
    // JSON escaped (`Escaped`), and the status is a number. `from_string_unchecked` parses it
    // again in debug builds, and `tests` compare it with serde's text for any event and result.
    #[allow(unsafe_code)]
    let raw = unsafe { RawValue::from_string_unchecked(text) };
    Some(raw)
}

/// `,"<name>":{"<key>":"<value>",...}` unless `attributes` is empty; keys and values plain.
fn push_attributes(out: &mut Vec<u8>, name: &str, attributes: &[(&str, &str)]) {
    if attributes.is_empty() {
        return;
    }
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":{");
    for (i, (key, value)) in attributes.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'"');
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":\"");
        out.extend_from_slice(value.as_bytes());
        out.push(b'"');
    }
    out.push(b'}');
}

/// `text` as the inside of a JSON string, escaped as `serde_json` escapes a string.
fn write_escaped<W: ?Sized + io::Write>(writer: &mut W, text: &[u8]) -> io::Result<()> {
    let mut rest = text;
    loop {
        let (plain, tail) = rest.split_at_checked(plain_run(rest)).unwrap_or((rest, &[]));
        writer.write_all(plain)?;
        let Some((&stop, after)) = tail.split_first() else { return Ok(()) };
        CompactFormatter.write_char_escape(writer, char_escape(stop))?;
        rest = after;
    }
}

/// How `serde_json` escapes `byte` (a quote, a backslash or a control character).
fn char_escape(byte: u8) -> CharEscape {
    match byte {
        b'"' => CharEscape::Quote,
        b'\\' => CharEscape::ReverseSolidus,
        0x08 => CharEscape::Backspace,
        0x0c => CharEscape::FormFeed,
        b'\n' => CharEscape::LineFeed,
        b'\r' => CharEscape::CarriageReturn,
        b'\t' => CharEscape::Tab,
        control => CharEscape::AsciiControl(control),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde::de::IgnoredAny;
    use serde_json::value::RawValue;
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
            let mut out = b"\"".to_vec();
            super::write_escaped(&mut out, text.as_bytes()).unwrap();
            out.push(b'"');
            prop_assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&text).unwrap());
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
        assert!(super::success(&view, &"a JSON string").is_none());
        let raw = super::success(&view, &json!({"miles": 7.7})).unwrap();
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
    fn a_result_holding_raw_json_is_escaped_as_the_builder_escapes_it() {
        let text = r#"{"actionGroup":"g","function":"f"}"#;
        // serde_json writes a `RawValue` as it is, spaces included: `write_raw_fragment`
        let answer = |_: IgnoredAny| {
            let raw = RawValue::from_string("[1, \"a\\n\"]".to_string()).unwrap();
            Ok::<_, ToolError>(BTreeMap::from([("raw", raw)]))
        };
        let raw = handle_body_raw(text.as_bytes(), answer).unwrap();
        assert!(raw.get().contains(r#""body":"{\"raw\":[1, \"a\\n\"]}""#), "{}", raw.get());
        assert_eq!(
            raw.get(),
            serde_json::to_string(&handle_body(text.as_bytes(), answer)).unwrap()
        );
    }

    #[test]
    fn a_response_over_the_limit_is_cut_as_the_builder_cuts_it() {
        let text = r#"{"actionGroup":"g","function":"f"}"#;
        let view = crate::scan::read(text).unwrap();
        let long = "x".repeat(MAX_RESPONSE_BYTES);
        assert!(super::success(&view, &[long.as_str()]).is_none());
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
