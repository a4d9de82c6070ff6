//! How much of a caller's value a message repeats: one bound for every message.

use std::borrow::Cow;

/// The most characters of a caller's value an error message repeats.
pub const MAX_EXCERPT_CHARS: usize = 80;

/// `value` cut after [`MAX_EXCERPT_CHARS`] characters, with `...` where it was cut.
pub fn excerpt(value: &str) -> Cow<'_, str> {
    match head(value) {
        Some(head) => Cow::Owned(format!("{head}...")),
        None => Cow::Borrowed(value),
    }
}

/// `value` quoted for a message (escaped as a Rust/JSON string), cut after
/// [`MAX_EXCERPT_CHARS`] characters.
pub fn quote(value: &str) -> String {
    match head(value) {
        Some(head) => format!("{head:?}..."),
        None => format!("{value:?}"),
    }
}

/// The first [`MAX_EXCERPT_CHARS`] characters of `value` when it has more.
fn head(value: &str) -> Option<&str> {
    value.char_indices().nth(MAX_EXCERPT_CHARS).map(|(cut, _)| &value[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut_on_a_character_boundary() {
        let long = "\u{e9}".repeat(MAX_EXCERPT_CHARS + 5);
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), MAX_EXCERPT_CHARS + 3);
        assert!(cut.ends_with("..."));
        assert_eq!(excerpt("short"), "short");
        assert_eq!(quote("a\"b"), "\"a\\\"b\"");
        assert!(quote(&long).ends_with("\"..."));
    }
}
