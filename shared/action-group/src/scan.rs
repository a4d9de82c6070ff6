//! The fast reader of event text: an event as Bedrock sends it (the documented fields, plain
//! strings, no `null`s) is read straight into an [`EventView`], in one pass over the bytes,
//! borrowing every string.
//!
//! It gives up (`None`) on anything else: an escape or control character in a string, a
//! number, `null` or another kind where a known field expects a string, list or object, a
//! known key given twice, nesting deeper than [`MAX_DEPTH`], a missing required field, an
//! event in neither form, or text after the event. The serde reader ([`crate::slots`]) and
//! [`crate::parse::view`] then read the event, so what an event means and every error message
//! are decided in one place; this reader only has to agree with them on the events it
//! accepts, which `tests/one_parse.rs` and the property tests check.

use std::ops::Deref;

use crate::parse::{BodyView, EventView, FormView, ParamView};
use crate::slots::sorted_unique;

/// Nesting this reader follows inside unknown fields before it leaves the event to serde
/// (well under `serde_json`'s limit, so everything it accepts `serde_json` accepts too).
const MAX_DEPTH: usize = 16;

/// A position in event text.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

/// The event's known fields as they are read.
#[derive(Default)]
struct EventFields<'a> {
    message_version: Option<&'a str>,
    agent: Option<[&'a str; 4]>,
    input_text: Option<&'a str>,
    session_id: Option<&'a str>,
    action_group: Option<&'a str>,
    function: Option<&'a str>,
    api_path: Option<&'a str>,
    http_method: Option<&'a str>,
    parameters: Option<Vec<ParamView<'a>>>,
    request_body: Option<BodyView<'a>>,
    session_attributes: Option<Vec<(&'a str, &'a str)>>,
    prompt_attributes: Option<Vec<(&'a str, &'a str)>>,
}

/// An event [`read`] accepted: each string it holds is plain (no `"`, `\\` or control
/// character, see [`plain_run`]), so JSON text can hold it between quotes as it is.
#[derive(Debug)]
pub(crate) struct Plain<'a>(EventView<'a>);

impl<'a> Deref for Plain<'a> {
    type Target = EventView<'a>;

    fn deref(&self) -> &EventView<'a> {
        &self.0
    }
}

/// Reads an event as Bedrock sends it, or `None` when the serde reader must decide. Its
/// attributes come sorted by key, each key once (a repeated key is left to serde).
pub(crate) fn read(text: &str) -> Option<Plain<'_>> {
    let mut cursor = Cursor { text, at: 0 };
    let view = cursor.event()?;
    cursor.ws();
    (cursor.at == text.len()).then_some(Plain(view))
}

/// How many bytes `bytes` starts with before its first `"`, `\\` or control character (all
/// of them when it has none): the run a JSON string holds as it is.
#[inline]
pub(crate) fn plain_run(bytes: &[u8]) -> usize {
    let mut end = 0;
    // Eight bytes at a time up to the first byte that ends a plain run.
    while let Some(word) = bytes.get(end..end + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
        let marks = stops(u64::from_le_bytes(word));
        if marks != 0 {
            return end + (marks.trailing_zeros() / 8) as usize;
        }
        end += 8;
    }
    let tail = bytes.get(end..).unwrap_or_default();
    end + tail.iter().position(|&b| matches!(b, b'"' | b'\\' | 0..0x20)).unwrap_or(tail.len())
}

/// The high bit of each byte of `word` (little-endian) that ends a plain string: `"`, `\\` or a
/// control character. Bytes above the first marked one may be marked wrongly; the first is exact.
fn stops(word: u64) -> u64 {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = ONES << 7;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x;
    let quote = zero(word ^ (ONES * u64::from(b'"')));
    let backslash = zero(word ^ (ONES * u64::from(b'\\')));
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    (quote | backslash | control) & HIGHS
}

/// Fills a field that must appear once; a second occurrence gives up.
fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    match slot {
        Some(_) => None,
        None => {
            *slot = Some(value);
            Some(())
        }
    }
}

impl<'a> Cursor<'a> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// Skips JSON whitespace.
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// Consumes `byte` after whitespace, when it is next.
    #[inline]
    fn next_is(&mut self, byte: u8) -> bool {
        let mut next = self.peek();
        if let Some(b' ' | b'\t' | b'\n' | b'\r') = next {
            self.ws();
            next = self.peek();
        }
        let found = next == Some(byte);
        self.at += usize::from(found);
        found
    }

    /// `byte` after whitespace, or give up.
    #[inline]
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.next_is(byte).then_some(())
    }

    /// A string with no escape and no control character.
    #[inline]
    fn string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.at;
        let bytes = self.text.as_bytes();
        let mut end = start;
        // `plain_run`'s loop, written out here: calling it kept `string` from being inlined
        // into the readers, a tenth slower overall (measured, decision 54).
        loop {
            // Eight bytes at a time up to the first byte that ends a plain string.
            if let Some(word) = bytes.get(end..end + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
                let marks = stops(u64::from_le_bytes(word));
                if marks == 0 {
                    end += 8;
                    continue;
                }
                end += (marks.trailing_zeros() / 8) as usize;
            }
            match *bytes.get(end)? {
                b'"' => break,
                b'\\' | 0..0x20 => return None,
                _ => end += 1,
            }
        }
        self.at = end + 1;
        self.text.get(start..end)
    }

    /// An object, handing each key to `entry`, which reads (or skips) its value.
    #[inline(always)]
    fn object(&mut self, mut entry: impl FnMut(&'a str, &mut Self) -> Option<()>) -> Option<()> {
        self.expect(b'{')?;
        if self.next_is(b'}') {
            return Some(());
        }
        loop {
            let key = self.string()?;
            self.expect(b':')?;
            entry(key, self)?;
            if !self.next_is(b',') {
                return self.expect(b'}');
            }
        }
    }

    /// An array, reading each element with `item`.
    #[inline(always)]
    fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.expect(b'[')?;
        if self.next_is(b']') {
            return Some(());
        }
        loop {
            item(self)?;
            if !self.next_is(b',') {
                return self.expect(b']');
            }
        }
    }

    /// The value of an unknown field, checked and dropped; numbers are left to serde.
    fn skip(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => self.object(|_, c| c.skip(depth + 1)),
            b'[' => self.array(|c| c.skip(depth + 1)),
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'n' => self.literal("null"),
            _ => None,
        }
    }

    #[inline(always)]
    fn literal(&mut self, word: &str) -> Option<()> {
        let end = self.at + word.len();
        let found = self.text.as_bytes().get(self.at..end)? == word.as_bytes();
        found.then(|| self.at = end)
    }

    /// The event object, with the defaults [`crate::parse::view`] gives absent fields.
    #[inline(always)]
    fn event(&mut self) -> Option<EventView<'a>> {
        let mut f = EventFields::default();
        self.object(|key, c| match key {
            "messageVersion" => once(&mut f.message_version, c.string()?),
            "agent" => once(&mut f.agent, c.agent()?),
            "inputText" => once(&mut f.input_text, c.string()?),
            "sessionId" => once(&mut f.session_id, c.string()?),
            "actionGroup" => once(&mut f.action_group, c.string()?),
            "function" => once(&mut f.function, c.string()?),
            "apiPath" => once(&mut f.api_path, c.string()?),
            "httpMethod" => once(&mut f.http_method, c.string()?),
            "parameters" => once(&mut f.parameters, c.params()?),
            "requestBody" => once(&mut f.request_body, c.request_body()?),
            "sessionAttributes" => once(&mut f.session_attributes, c.attributes()?),
            "promptSessionAttributes" => once(&mut f.prompt_attributes, c.attributes()?),
            _ => c.skip(1),
        })?;
        let (form, request_body) = match (f.function, f.api_path) {
            (Some(function), _) => (FormView::Function(function), None),
            (None, Some(api_path)) => {
                (FormView::Api { api_path, http_method: f.http_method? }, f.request_body)
            }
            (None, None) => return None,
        };
        Some(EventView {
            message_version: f.message_version.unwrap_or("1.0"),
            agent: f.agent.unwrap_or([""; 4]),
            input_text: f.input_text.unwrap_or_default(),
            session_id: f.session_id.unwrap_or_default(),
            action_group: f.action_group?,
            form,
            parameters: f.parameters.unwrap_or_default(),
            request_body,
            session_attributes: f.session_attributes.unwrap_or_default(),
            prompt_session_attributes: f.prompt_attributes.unwrap_or_default(),
        })
    }

    /// `agent`: name, id, alias and version (`""` when absent).
    #[inline(always)]
    fn agent(&mut self) -> Option<[&'a str; 4]> {
        let (mut name, mut id, mut alias, mut version) = (None, None, None, None);
        self.object(|key, c| match key {
            "name" => once(&mut name, c.string()?),
            "id" => once(&mut id, c.string()?),
            "alias" => once(&mut alias, c.string()?),
            "version" => once(&mut version, c.string()?),
            _ => c.skip(2),
        })?;
        Some([name, id, alias, version].map(Option::unwrap_or_default))
    }

    /// A list of `{name, type, value}` objects.
    #[inline(always)]
    fn params(&mut self) -> Option<Vec<ParamView<'a>>> {
        let mut out = Vec::with_capacity(8);
        self.array(|c| {
            out.push(c.param()?);
            Some(())
        })?;
        Some(out)
    }

    /// One `{name, type, value}` object; `type` defaults to `string`.
    #[inline(always)]
    fn param(&mut self) -> Option<ParamView<'a>> {
        let (mut name, mut kind, mut value) = (None, None, None);
        self.object(|key, c| match key {
            "name" => once(&mut name, c.string()?),
            "type" => once(&mut kind, c.string()?),
            "value" => once(&mut value, c.string()?),
            _ => c.skip(3),
        })?;
        Some(ParamView { name: name?, kind: kind.unwrap_or("string"), value: value? })
    }

    /// An object of strings, sorted by key.
    #[inline(always)]
    fn attributes(&mut self) -> Option<Vec<(&'a str, &'a str)>> {
        let mut out = Vec::new();
        self.object(|key, c| {
            out.push((key, c.string()?));
            Some(())
        })?;
        sorted_unique(out)
    }

    /// `requestBody`: its `content` (none when absent).
    #[inline(always)]
    fn request_body(&mut self) -> Option<BodyView<'a>> {
        let mut content = None;
        self.object(|key, c| match key {
            "content" => once(&mut content, c.content()?),
            _ => c.skip(2),
        })?;
        Some(content.unwrap_or_default())
    }

    /// `requestBody.content`: each content type's `properties`, sorted by content type.
    #[inline(always)]
    fn content(&mut self) -> Option<BodyView<'a>> {
        let mut out = Vec::new();
        self.object(|ctype, c| {
            let mut properties = None;
            c.object(|key, c| match key {
                "properties" => once(&mut properties, c.params()?),
                _ => c.skip(4),
            })?;
            out.push((ctype, properties.unwrap_or_default()));
            Some(())
        })?;
        sorted_unique(out)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    use super::{plain_run, read, stops};
    use crate::parse::view;
    use crate::slots::from_text;

    /// When the fast reader accepts text, serde reads the same event from it.
    fn agrees(text: &str) -> Result<bool, TestCaseError> {
        let Some(fast) = read(text) else { return Ok(false) };
        let root = from_text(text);
        prop_assert!(root.is_ok(), "fast reader accepted what serde refuses: {text}");
        let root = root.unwrap();
        prop_assert_eq!(view(&root), Ok(fast.0), "{}", text);
        Ok(true)
    }

    /// Strings as Bedrock sends them, and strings the fast reader leaves to serde.
    pub(crate) fn plain() -> impl Strategy<Value = String> {
        "[a-zA-Z0-9 ./:_-]{0,12}"
    }

    pub(crate) fn any_string() -> impl Strategy<Value = String> {
        prop_oneof![plain(), "[a-z\"\\\\\n\t\u{1}é😀/]{0,8}"]
    }

    fn param(s: BoxedStrategy<String>) -> impl Strategy<Value = Value> {
        (s.clone(), prop::option::of(s.clone()), s, any::<bool>()).prop_map(
            |(name, kind, value, extra)| {
                let mut p = json!({"name": name, "value": value});
                if let Some(kind) = kind {
                    p["type"] = json!(kind);
                }
                if extra {
                    p["note"] = json!([true, null, {"x": "y"}]);
                }
                p
            },
        )
    }

    /// A Bedrock-like event whose strings come from `s`, with optional fields dropped,
    /// either form (or both, or neither) and unknown fields.
    pub(crate) fn event(s: BoxedStrategy<String>) -> impl Strategy<Value = Value> {
        let params = prop::collection::vec(param(s.clone()), 0..4).boxed();
        let attrs = prop::collection::btree_map(s.clone(), s.clone(), 0..3).boxed();
        (
            (
                prop::collection::vec(prop::option::of(s.clone()), 4),
                prop::collection::vec(s.clone(), 4),
            ),
            (params.clone(), params),
            (attrs.clone(), attrs),
            (0..4u8, any::<bool>(), any::<bool>(), 0..3u8),
        )
            .prop_map(
                |(
                    (optional, names),
                    (params, props),
                    (session, prompt),
                    (form, agent, unknown, body),
                )| {
                    let mut e = Map::new();
                    let keys = ["messageVersion", "inputText", "sessionId", "actionGroup"];
                    for (key, value) in keys.iter().zip(&optional) {
                        if let Some(v) = value {
                            e.insert((*key).into(), json!(v));
                        }
                    }
                    if form & 1 == 1 {
                        e.insert("function".into(), json!(names[0]));
                    }
                    if form & 2 == 2 {
                        e.insert("apiPath".into(), json!(names[1]));
                        e.insert("httpMethod".into(), json!(names[2]));
                    }
                    if agent {
                        e.insert(
                            "agent".into(),
                            json!({"name": names[3], "id": "A1", "x": [true]}),
                        );
                    }
                    e.insert("parameters".into(), json!(params));
                    if body > 0 {
                        let content = if body == 1 {
                            json!({})
                        } else {
                            json!({"text/plain": {"properties": props}})
                        };
                        e.insert("requestBody".into(), json!({"content": content}));
                    }
                    e.insert("sessionAttributes".into(), json!(session));
                    e.insert("promptSessionAttributes".into(), json!(prompt));
                    if unknown {
                        e.insert("trace".into(), json!({"deep": [[{"a": false}]], "n": "1.5"}));
                    }
                    Value::Object(e)
                },
            )
    }

    #[test]
    fn stop_marks_find_the_first_stop_byte() {
        let naive = |w: [u8; 8]| w.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
        let first = |w: [u8; 8]| {
            let marks = stops(u64::from_le_bytes(w));
            (marks != 0).then(|| (marks.trailing_zeros() / 8) as usize)
        };
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut w = [b'a'; 8];
                w[at] = b;
                assert_eq!(first(w), naive(w), "{w:?}");
                let mut w = [0xff; 8];
                w[at] = b;
                assert_eq!(first(w), naive(w), "{w:?}");
            }
        }
        proptest!(|(w in any::<[u8; 8]>())| prop_assert_eq!(first(w), naive(w)));
    }

    proptest! {
        #[test]
        fn a_plain_run_ends_at_the_first_stop_byte(
            bytes in prop::collection::vec(prop_oneof![Just(b'"'), Just(b'\\'), any::<u8>()], 0..40)
        ) {
            let naive = bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            prop_assert_eq!(plain_run(&bytes), naive.unwrap_or(bytes.len()));
        }
    }

    #[test]
    fn a_bedrock_event_is_read_by_the_fast_reader() {
        let text = r#"{"messageVersion":"1.0","agent":{"name":"units","id":"A","alias":"T","version":"DRAFT"},
            "inputText":"12.5 km?","sessionId":"1","actionGroup":"units","function":"convert",
            "parameters":[{"name":"value","type":"number","value":"12.5"},{"name":"to","value":"mi"}],
            "sessionAttributes":{"u":"1","a":"2"},"promptSessionAttributes":{}}"#;
        assert!(agrees(text).unwrap());
        let v = read(text).unwrap();
        assert_eq!(v.session_attributes, vec![("a", "2"), ("u", "1")]);
        assert_eq!(v.parameters[1].kind, "string");
    }

    #[test]
    fn unusual_events_are_left_to_serde() {
        for text in [
            r#"{"actionGroup":"g","function":"f\u0041"}"#,
            r#"{"actionGroup":"g","function":"f","function":"h"}"#,
            r#"{"actionGroup":"g","function":null}"#,
            r#"{"actionGroup":"g","function":"f","x":12}"#,
            r#"{"actionGroup":"g","function":"f"} x"#,
            r#"{"actionGroup":"g","apiPath":"/p"}"#,
            r#"{"function":"f"}"#,
            r#"{"actionGroup":"g","function":"f","sessionAttributes":{"k":"1","k":"2"}}"#,
            r#"{"actionGroup":"g","function":"f","z":[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]}"#,
            "{\"actionGroup\":\"g\",\"function\":\"a\tb\"}",
            "[]",
            "",
        ] {
            assert!(read(text).is_none(), "{text}");
        }
    }

    proptest! {
        #[test]
        fn plain_events_are_read_fast_and_as_serde_reads_them(
            e in event(plain().boxed()), pretty in any::<bool>(),
        ) {
            let text = if pretty { serde_json::to_string_pretty(&e) } else { serde_json::to_string(&e) };
            let text = text.unwrap();
            let readable = e.get("actionGroup").is_some()
                && (e.get("function").is_some() || e.get("apiPath").is_some());
            prop_assert_eq!(agrees(&text)?, readable, "{}", text);
        }

        #[test]
        fn any_event_the_fast_reader_accepts_reads_as_serde_reads_it(
            e in event(any_string().boxed()), pretty in any::<bool>(),
        ) {
            let text = if pretty { serde_json::to_string_pretty(&e) } else { serde_json::to_string(&e) };
            agrees(&text.unwrap())?;
        }

        #[test]
        fn damaged_text_is_never_misread(e in event(plain().boxed()), cut in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let text = serde_json::to_string(&e).unwrap();
            let at = cut.index(text.len() + 1);
            let mut bytes = text.as_bytes()[..at].to_vec();
            bytes.push(byte);
            bytes.extend_from_slice(&text.as_bytes()[at..]);
            if let Ok(damaged) = String::from_utf8(bytes) {
                agrees(&damaged)?;
            }
            agrees(&text[..text.floor_char_boundary(at)])?;
        }
    }
}
