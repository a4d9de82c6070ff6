//! JSON Pointer (RFC 6901) building.

/// `base` followed by one reference token, escaped (`~` as `~0`, `/` as `~1`).
pub(crate) fn join(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_tokens() {
        assert_eq!(super::join("/types", "a/b~c"), "/types/a~1b~0c");
        assert_eq!(super::join("", "x"), "/x");
    }
}
