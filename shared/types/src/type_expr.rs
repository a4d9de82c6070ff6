//! Parsing of a `type` string: a scalar, `object`, `array`, a named type, each with `[]` suffixes.

/// Built-in scalar types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalar {
    String,
    Number,
    Integer,
    Boolean,
    Unknown,
    File,
}

impl Scalar {
    /// The wire spelling.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Number => "number",
            Self::Integer => "integer",
            Self::Boolean => "boolean",
            Self::Unknown => "unknown",
            Self::File => "file",
        }
    }
}

/// What a `type` string names before any `[]` suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Base<'a> {
    Scalar(Scalar),
    /// `object`: an inline object described by `properties`.
    Object,
    /// `array`: an inline array described by `items`.
    Array,
    /// A PascalCase name from the tool's `types`.
    Named(&'a str),
}

/// A parsed `type` string: `base` wrapped in `dims` arrays (`T[][]` has `dims == 2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TypeExpr<'a> {
    pub(crate) base: Base<'a>,
    pub(crate) dims: usize,
}

/// Parses a `type` string; `None` when it is neither a built-in nor a PascalCase name.
pub(crate) fn parse(text: &str) -> Option<TypeExpr<'_>> {
    let mut rest = text;
    let mut dims = 0;
    while let Some(inner) = rest.strip_suffix("[]") {
        rest = inner;
        dims += 1;
    }
    let base = match rest {
        "string" => Base::Scalar(Scalar::String),
        "number" => Base::Scalar(Scalar::Number),
        "integer" => Base::Scalar(Scalar::Integer),
        "boolean" => Base::Scalar(Scalar::Boolean),
        "unknown" => Base::Scalar(Scalar::Unknown),
        "file" => Base::Scalar(Scalar::File),
        "object" => Base::Object,
        "array" => Base::Array,
        name if is_pascal_case(name) => Base::Named(name),
        _ => return None,
    };
    Some(TypeExpr { base, dims })
}

/// `PascalCase`: an ASCII capital, then ASCII letters and digits.
pub(crate) fn is_pascal_case(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_alphanumeric())
}

/// Bedrock's name pattern `([0-9a-zA-Z][_-]?){1,100}`, matched in full.
pub(crate) fn is_bedrock_name(name: &str) -> bool {
    let mut alnum = 0usize;
    let mut last_was_separator = true;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            alnum += 1;
            last_was_separator = false;
        } else if (c == '_' || c == '-') && !last_was_separator {
            last_was_separator = true;
        } else {
            return false;
        }
    }
    (1..=100).contains(&alnum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_shorthand_and_names() {
        assert_eq!(
            parse("string[]"),
            Some(TypeExpr { base: Base::Scalar(Scalar::String), dims: 1 })
        );
        assert_eq!(
            parse("CartItem[][]"),
            Some(TypeExpr { base: Base::Named("CartItem"), dims: 2 })
        );
        assert_eq!(parse("array"), Some(TypeExpr { base: Base::Array, dims: 0 }));
        assert_eq!(parse("cartItem"), None);
        assert_eq!(parse("[]"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn bedrock_name_pattern() {
        for ok in ["a", "get_weather", "get-weather", "a_b_c", "x_", "A1-"] {
            assert!(is_bedrock_name(ok), "{ok}");
        }
        for bad in ["", "_a", "a__b", "a-_b", "a b", "é", &"a".repeat(101)] {
            assert!(!is_bedrock_name(bad), "{bad}");
        }
        assert!(is_bedrock_name(&"a".repeat(100)));
    }
}
