//! HTML written safely: markup only from string literals, everything else escaped.
//!
//! [`Html::raw`] takes `&'static str`, so text built at run time (names, descriptions,
//! prompts, rule conditions: all attacker-controlled) can only enter a page through
//! [`Html::text`], which escapes it for element content and double-quoted attribute
//! values alike.

/// A page or fragment being written.
#[derive(Debug, Default)]
pub struct Html {
    buf: String,
}

impl Html {
    /// An empty fragment.
    pub fn new() -> Self {
        Self { buf: String::with_capacity(8 * 1024) }
    }

    /// Markup written by this crate (a literal: never run-time text).
    pub fn raw(&mut self, markup: &'static str) -> &mut Self {
        self.buf.push_str(markup);
        self
    }

    /// Text, escaped (`&`, `<`, `>`, `"`, `'`).
    pub fn text(&mut self, text: &str) -> &mut Self {
        escape_into(&mut self.buf, text);
        self
    }

    /// A number as text.
    pub fn num(&mut self, n: impl std::fmt::Display) -> &mut Self {
        use std::fmt::Write as _;
        let _ = write!(self.buf, "{n}");
        self
    }

    /// `open`, the escaped `text`, then `close`.
    pub fn el(&mut self, open: &'static str, text: &str, close: &'static str) -> &mut Self {
        self.raw(open).text(text).raw(close)
    }

    /// Appends another fragment (already safe).
    pub fn append(&mut self, other: Html) -> &mut Self {
        self.buf.push_str(&other.buf);
        self
    }

    /// The HTML written.
    pub fn into_string(self) -> String {
        self.buf
    }

    /// The HTML written so far.
    pub fn as_str(&self) -> &str {
        &self.buf
    }
}

/// Appends `text` to `out`, escaped for HTML content and quoted attributes.
pub fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// `text` percent-encoded for a URL path segment or query value (everything but
/// RFC 3986's unreserved characters).
pub fn url_component(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, UNRESERVED_KEPT).to_string()
}

/// Everything but RFC 3986's unreserved characters.
const UNRESERVED_KEPT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_raw_is_not() {
        let mut h = Html::new();
        h.raw("<p title=\"").text("a\"b").raw("\">").text("<img src=x onerror=alert(1)>&'");
        assert_eq!(
            h.into_string(),
            "<p title=\"a&quot;b\">&lt;img src=x onerror=alert(1)&gt;&amp;&#39;"
        );
    }

    #[test]
    fn url_components_are_percent_encoded() {
        assert_eq!(url_component("weather-forecast@^1 x/y"), "weather-forecast%40%5E1%20x%2Fy");
    }
}
