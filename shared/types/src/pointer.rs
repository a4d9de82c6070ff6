//! JSON Pointer (RFC 6901) building.

/// Where a value sits in a document being walked, as a chain of steps kept on the
/// walker's stack: the JSON Pointer is written out only when asked (for a problem),
/// not for every value visited.
#[derive(Debug, Clone, Copy)]
pub enum PointerPath<'a> {
    /// The document itself.
    Root,
    /// The member `key` of the object at the parent path.
    Key(&'a PointerPath<'a>, &'a str),
    /// The element `index` of the array at the parent path.
    Index(&'a PointerPath<'a>, usize),
}

impl PointerPath<'_> {
    /// The JSON Pointer of this path (`""` for the root).
    pub fn pointer(&self) -> String {
        match self {
            Self::Root => String::new(),
            Self::Key(parent, key) => pointer(&parent.pointer(), key),
            Self::Index(parent, index) => pointer(&parent.pointer(), index),
        }
    }
}

/// `base` followed by one reference token, escaped (`~` as `~0`, `/` as `~1`): the one
/// JSON Pointer escaping of the workspace.
pub fn pointer(base: &str, token: impl std::fmt::Display) -> String {
    let token = token.to_string();
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
    use super::PointerPath;

    #[test]
    fn paths_are_written_out_as_pointers() {
        let root = PointerPath::Root;
        let key = PointerPath::Key(&root, "a/b");
        assert_eq!(PointerPath::Index(&key, 3).pointer(), "/a~1b/3");
        assert_eq!(root.pointer(), "");
    }

    #[test]
    fn escapes_tokens() {
        assert_eq!(super::pointer("/types", "a/b~c"), "/types/a~1b~0c");
        assert_eq!(super::pointer("", "x"), "/x");
        assert_eq!(super::pointer("/toolIds", 3), "/toolIds/3");
    }
}
