//! How text reaches a page: every page is a [`maud`] template, checked when the crate
//! compiles, and maud escapes each `(value)` it writes (element content and attribute
//! values alike). Stored text (names, descriptions, prompts, rule conditions: all
//! attacker-controlled) is only ever such a value; markup is only ever template source.
//! What a template cannot escape is a URL's own syntax: [`url_component`] encodes a
//! value put into a path or query.

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
    use maud::html;

    #[test]
    fn values_are_escaped_and_template_markup_is_not() {
        let (title, text) = ("a\"b", "<img src=x onerror=alert(1)>&");
        let page = html! { p title=(title) { (text) } }.into_string();
        assert_eq!(page, "<p title=\"a&quot;b\">&lt;img src=x onerror=alert(1)&gt;&amp;</p>");
    }

    #[test]
    fn url_components_are_percent_encoded() {
        assert_eq!(url_component("weather-forecast@^1 x/y"), "weather-forecast%40%5E1%20x%2Fy");
    }
}
