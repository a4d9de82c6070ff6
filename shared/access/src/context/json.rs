//! The JSON text of a request context read straight into the context's plain values,
//! borrowing every string that needs no unescaping: what
//! [`PreparedContext::from_json`](crate::PreparedContext::from_json) parses.
//!
//! A one-pass reader for the one shape a context has. It takes only text that
//! `RequestContext`'s own `Deserialize` (through `serde_json`) accepts, and gives the
//! same values: what it does not handle itself (a string with escapes, a number other
//! than a plain integer, a time) it hands to `serde_json` or `chrono` exactly as the
//! typed path does. It enforces the context limits as it reads, so what it gives
//! needs no second walk. Anything else (invalid text, an unknown field, an object
//! repeating a key, a key with escapes, anything over a limit) is `None`, and the
//! caller takes the typed path, which says what is wrong and where.

use crate::context::prepared::{ACCOUNT_FIELDS, Parts, USER_FIELDS};
use crate::context::value::Value;
use crate::limits::{
    MAX_CONTEXT_COLLECTION, MAX_CONTEXT_DEPTH, MAX_CONTEXT_STRING_BYTES, MAX_CONTEXT_VALUES,
};
use chrono::{DateTime, FixedOffset};
use std::borrow::Cow;

/// Entries of a JSON object, as [`Value::Map`] holds them.
type Entries<'a> = Vec<(Cow<'a, str>, Value<'a>)>;

/// Reads `text` (a whole request context) into its parts, or `None` (see the module).
// Inlined, with the string readers below, into their callers: returned through memory,
// their results were read back before the stores had landed (a store-forwarding stall
// on every string, the hottest instruction of `Reader::text` in `perf annotate`).
#[inline(always)]
pub(crate) fn read(text: &str) -> Option<Parts<'_>> {
    let mut r = Reader { text, bytes: text.as_bytes(), at: 0, values: 0 };
    let mut parts = Parts::default();
    let mut seen = [false; 4];
    r.object(|r, key| {
        let field = ["user", "customData", "account", "request"].iter().position(|f| *f == key)?;
        if std::mem::replace(&mut seen[field], true) {
            return None; // a repeated field
        }
        match field {
            0 => r.record(&USER_FIELDS, |r, i| {
                parts.user[i] = if i == 3 { r.strings()? } else { r.text()? };
                Some(())
            }),
            1 => {
                parts.custom_data = Value::Map(r.entries(1)?);
                Some(())
            }
            2 => r.record(&ACCOUNT_FIELDS, |r, i| {
                parts.account[i] = r.text()?;
                Some(())
            }),
            _ => r.record(&["region", "time", "agentId", "toolId"], |r, i| {
                match i {
                    0 => parts.region = r.text()?,
                    1 => parts.time = r.time()?,
                    2 => parts.agent_id = r.text()?,
                    _ => parts.tool_id = r.text()?,
                }
                Some(())
            }),
        }
    })?;
    r.space();
    (r.at == r.bytes.len()).then_some(parts)
}

/// Where the string starting at `i` (after its opening quote) ends, and whether it
/// holds an escape; `None` when it is cut short or holds a control character.
fn string_end(bytes: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    loop {
        // eight bytes at a time up to the first that may be a quote, a backslash or a
        // control character
        while let Some(chunk) = bytes.get(i..i + 8) {
            let found = special(u64::from_le_bytes(chunk.try_into().ok()?));
            if found != 0 {
                i += found.trailing_zeros() as usize / 8;
                break;
            }
            i += 8;
        }
        match *bytes.get(i)? {
            b'"' => return Some((i, escaped)),
            b'\\' => {
                escaped = true;
                i += 2;
            }
            0..=0x1f => return None,
            _ => i += 1,
        }
    }
}

/// A quoted string with escapes, decoded by `serde_json` (which checks every escape),
/// when within the string limit.
#[cold]
#[inline(never)]
fn unescape(quoted: &str) -> Option<String> {
    let s = serde_json::from_str::<String>(quoted).ok()?;
    (s.len() <= MAX_CONTEXT_STRING_BYTES).then_some(s)
}

/// The high bit of each byte of `word` that may be a quote, a backslash or below 0x20:
/// none missed, and the lowest set bit is exact (a false one only follows a true one).
fn special(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let quote = zero_byte(word ^ (ONES * u64::from(b'"')));
    let backslash = zero_byte(word ^ (ONES * u64::from(b'\\')));
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    quote | backslash | control
}

/// A position in the text being read.
struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// Values of `customData` read so far (the limit counts every one, at any depth).
    values: usize,
}

impl<'a> Reader<'a> {
    /// Skips JSON whitespace.
    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after whitespace, consumed.
    fn next(&mut self) -> Option<u8> {
        self.space();
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    /// The next byte after whitespace, not consumed.
    fn peek(&mut self) -> Option<u8> {
        self.space();
        self.bytes.get(self.at).copied()
    }

    /// Consumes `word` (the rest of `true`, `false` or `null`).
    fn word(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// `null`, when it comes next.
    fn null(&mut self) -> Option<bool> {
        if self.peek()? == b'n' {
            self.at += 1;
            self.word(b"ull")?;
            return Some(true);
        }
        Some(false)
    }

    /// An object, giving each key to `entry`, which reads the value.
    fn object(&mut self, mut entry: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        if self.next()? != b'{' {
            return None;
        }
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            let key = self.key()?;
            if self.next()? != b':' {
                return None;
            }
            entry(self, key)?;
            match self.next()? {
                b',' => {}
                b'}' => return Some(()),
                _ => return None,
            }
        }
    }

    /// An object with the fields `names` (each at most once), `field` reading the
    /// value of the field at an index of `names`.
    fn record(
        &mut self,
        names: &[&str],
        mut field: impl FnMut(&mut Self, usize) -> Option<()>,
    ) -> Option<()> {
        let mut seen = 0u8;
        self.object(|r, key| {
            let i = names.iter().position(|n| *n == key)?;
            let bit = 1 << i;
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            field(r, i)
        })
    }

    /// An object key without escapes (a key with any is left to the typed path).
    #[inline(always)]
    fn key(&mut self) -> Option<&'a str> {
        if self.next()? != b'"' {
            return None;
        }
        match self.string_body()? {
            Cow::Borrowed(key) => Some(key),
            Cow::Owned(_) => None,
        }
    }

    /// The rest of a string whose opening quote was read: borrowed, or unescaped by
    /// `serde_json` when it holds an escape.
    #[inline(always)]
    fn string_body(&mut self) -> Option<Cow<'a, str>> {
        let start = self.at;
        let (end, escaped) = string_end(self.bytes, start)?;
        self.at = end + 1;
        if end - start > MAX_CONTEXT_STRING_BYTES && !escaped {
            return None;
        }
        if escaped {
            return unescape(self.text.get(start.checked_sub(1)?..end + 1)?).map(Cow::Owned);
        }
        self.text.get(start..end).map(Cow::Borrowed)
    }

    /// An optional string field.
    #[inline(always)]
    fn text(&mut self) -> Option<Option<Value<'a>>> {
        if self.null()? {
            return Some(None);
        }
        if self.next()? != b'"' {
            return None;
        }
        Some(Some(Value::Str(self.string_body()?)))
    }

    /// An optional list of strings.
    fn strings(&mut self) -> Option<Option<Value<'a>>> {
        if self.null()? {
            return Some(None);
        }
        let mut items = Vec::with_capacity(4);
        self.array(|r| {
            items.push(r.text()??);
            Some(())
        })?;
        Some(Some(Value::List(items)))
    }

    /// An optional RFC 3339 time, parsed as `chrono`'s `Deserialize` does.
    fn time(&mut self) -> Option<Option<DateTime<FixedOffset>>> {
        match self.text()? {
            None => Some(None),
            Some(Value::Str(s)) => s.parse().ok().map(Some),
            Some(_) => None,
        }
    }

    /// An array, `item` reading each element (at most the context's collection limit).
    fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if self.next()? != b'[' {
            return None;
        }
        if self.peek()? == b']' {
            self.at += 1;
            return Some(());
        }
        let mut count = 0;
        loop {
            count += 1;
            if count > MAX_CONTEXT_COLLECTION {
                return None;
            }
            item(self)?;
            match self.next()? {
                b',' => {}
                b']' => return Some(()),
                _ => return None,
            }
        }
    }

    /// The entries of an object at nesting `depth`; a repeated key keeps its first
    /// place and its last value, as `serde_json`'s map does.
    fn entries(&mut self, depth: usize) -> Option<Entries<'a>> {
        let mut out: Entries<'a> = Vec::with_capacity(8);
        self.object(|r, key| {
            let value = r.value(depth)?;
            // a repeated key (the typed path decides) or one entry too many
            if out.len() >= MAX_CONTEXT_COLLECTION || out.iter().any(|(k, _)| k == key) {
                return None;
            }
            out.push((Cow::Borrowed(key), value));
            Some(())
        })?;
        Some(out)
    }

    /// Any JSON value of `customData` at nesting `depth` (its entries are at 1).
    fn value(&mut self, depth: usize) -> Option<Value<'a>> {
        self.values += 1;
        if self.values > MAX_CONTEXT_VALUES {
            return None;
        }
        let next = self.peek()?;
        if matches!(next, b'{' | b'[') && depth >= MAX_CONTEXT_DEPTH {
            return None;
        }
        Some(match next {
            b'"' => {
                self.at += 1;
                Value::Str(self.string_body()?)
            }
            b'{' => Value::Map(self.entries(depth + 1)?),
            b'[' => {
                let mut items = Vec::with_capacity(4);
                self.array(|r| {
                    items.push(r.value(depth + 1)?);
                    Some(())
                })?;
                Value::List(items)
            }
            b't' => {
                self.word(b"true")?;
                Value::Bool(true)
            }
            b'f' => {
                self.word(b"false")?;
                Value::Bool(false)
            }
            b'n' => {
                self.word(b"null")?;
                Value::Null
            }
            _ => self.number()?,
        })
    }

    /// A number: a plain integer read here, any other left to `serde_json`.
    fn number(&mut self) -> Option<Value<'a>> {
        let start = self.at;
        let negative = self.bytes.get(self.at) == Some(&b'-');
        if negative {
            self.at += 1;
        }
        let digits = self.at;
        let mut n: u64 = 0;
        while let Some(d @ b'0'..=b'9') = self.bytes.get(self.at) {
            n = n.wrapping_mul(10).wrapping_add(u64::from(d - b'0'));
            self.at += 1;
        }
        let count = self.at - digits;
        let plain = (1..=18).contains(&count)
            && !matches!(self.bytes.get(self.at), Some(b'.' | b'e' | b'E'))
            && (count == 1 || self.bytes[digits] != b'0')
            && !(negative && n == 0);
        if plain {
            // at most 18 digits: no overflow, and an `i64` either way
            let n = i64::try_from(n).ok()?;
            return Some(Value::Int(if negative { -n } else { n }));
        }
        while let Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') = self.bytes.get(self.at) {
            self.at += 1;
        }
        let number: serde_json::Number =
            serde_json::from_str(self.text.get(start..self.at)?).ok()?;
        Some(Value::number(&number))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::read;

    /// What the reader takes itself (the rest goes to the typed path, whose results
    /// `tests/from_json.rs` compares with the reader's).
    #[test]
    fn takes_valid_contexts_and_leaves_the_rest() {
        let mut taken = vec![
            r#"{}"#.to_owned(),
            r#" { "user" : { "roles" : [ "a" , "b" ] } , "customData" : { "n" : -3 , "x" : [ 1.5 , null , { "y" : true } ] } } "#.to_owned(),
            r#"{"customData": {"s": "caf\u00e9 \"q\""}, "request": {"time": "2026-01-01T00:00:00Z"}}"#.to_owned(),
            r#"{"customData": {"big": 18446744073709551615, "neg": -0}}"#.to_owned(),
        ];
        // at the limits
        taken.push(
            serde_json::json!({"user": {"userId": "x".repeat(4096)},
            "customData": {"a": [[[[[[[1]]]]]]], "l": vec![1; 64]}})
            .to_string(),
        );
        // the benches' context, compact and pretty
        let file: serde_json::Value =
            serde_json::from_str(include_str!("../../benches/access-cases.json")).unwrap();
        taken.push(file["context"].to_string());
        taken.push(serde_json::to_string_pretty(&file["context"]).unwrap());
        for text in &taken {
            assert!(read(text).is_some(), "{text}");
        }
        let left = [
            r#"{"user": null}"#,
            r#"{"user": {}, "user": {}}"#,
            r#"{"usr": {}}"#,
            r#"{"custom\u0044ata": {}}"#,
            r#"{"customData": {"n": 01}}"#,
            r#"{"customData": {"s": "a	b"}}"#,
            r#"{"customData": {"s": "\ud83d"}}"#,
            r#"{"request": {"time": "yesterday"}}"#,
            r#"{} {}"#,
            r#"{"customData": {"l": [1,]}}"#,
            r#"{"customData": {"a": [[[[[[[[1]]]]]]]]}}"#,
        ];
        for text in left {
            assert!(read(text).is_none(), "{text}");
        }
    }
}
