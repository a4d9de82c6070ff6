//! A string-aware tokenizer for conditions, used before parsing: SQL-ism detection and
//! the bracket-nesting bound. String literals are single tokens, so nothing inside
//! quotes is ever mistaken for an operator or a bracket.

/// A lexical token of a condition, with its byte span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Spaces, tabs and newlines.
    Space,
    /// A quoted string or bytes literal, raw or not, single or triple quoted.
    Str,
    /// An identifier or keyword.
    Word,
    /// An operator or punctuation, one or two characters.
    Punct,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Token<'a> {
    /// What the token is.
    pub kind: Kind,
    /// Byte offset of its first character.
    pub start: usize,
    /// Its text.
    pub text: &'a str,
}

impl Token<'_> {
    /// Byte offset just after it.
    pub(crate) fn end(&self) -> usize {
        self.start + self.text.len()
    }
}

/// Splits `source` into tokens; unterminated strings run to the end.
pub(crate) fn tokens(source: &str) -> Vec<Token<'_>> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let c = bytes[i];
        let kind = if c.is_ascii_whitespace() {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            Kind::Space
        } else if let Some(end) = string_end(bytes, i) {
            i = end;
            Kind::Str
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            Kind::Word
        } else {
            let two = bytes.get(i..i + 2).unwrap_or(&[]);
            i += if matches!(two, b"==" | b"!=" | b"<=" | b">=" | b"<>" | b"&&" | b"||") {
                2
            } else {
                // one whole character, UTF-8 aware
                source.get(i..).and_then(|s| s.chars().next()).map_or(1, char::len_utf8)
            };
            Kind::Punct
        };
        out.push(Token { kind, start, text: source.get(start..i).unwrap_or("") });
    }
    out
}

/// If a string literal (with optional `r`/`b` prefixes) starts at `i`, the byte after it.
fn string_end(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    let mut raw = false;
    while j < bytes.len() && j < i + 2 && matches!(bytes[j], b'r' | b'R' | b'b' | b'B') {
        raw |= matches!(bytes[j], b'r' | b'R');
        j += 1;
    }
    let quote = *bytes.get(j)?;
    if quote != b'\'' && quote != b'"' {
        return None;
    }
    let triple = bytes.get(j..j + 3) == Some(&[quote, quote, quote][..]);
    let mut k = j + if triple { 3 } else { 1 };
    while k < bytes.len() {
        let b = bytes[k];
        if b == b'\\' && !raw {
            k += 2;
            continue;
        }
        if triple {
            if bytes.get(k..k + 3) == Some(&[quote, quote, quote][..]) {
                return Some(k + 3);
            }
        } else if b == quote {
            return Some(k + 1);
        } else if b == b'\n' {
            return Some(k);
        }
        k += 1;
    }
    Some(bytes.len())
}

/// Deepest nesting of `(`, `[` and `{` outside string literals, and where it is reached.
pub(crate) fn max_bracket_depth(source: &str) -> (usize, usize) {
    let mut depth = 0usize;
    let mut max = (0, 0);
    for t in tokens(source) {
        match t.text {
            "(" | "[" | "{" => {
                depth += 1;
                if depth > max.0 {
                    max = (depth, t.start);
                }
            }
            ")" | "]" | "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}
