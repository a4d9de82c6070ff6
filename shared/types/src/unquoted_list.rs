//! Bedrock's unquoted list form for array parameters: `[a, b, c]`.

use serde_json::Value;

/// Splits the inside of `[a, b, "c, d"]` into trimmed string items, respecting quotes and nested
/// brackets. Items wrapped in matching `"` or `'` are unquoted. Returns the 1-based index
/// of the first empty item as the error. `inner` is the text between the outer brackets.
pub(crate) fn split(inner: &str) -> Result<Vec<Value>, usize> {
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0usize;
    for (i, c) in inner.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '[' | '{' => depth += 1,
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(Value::String(item(&inner[start..i], items.len() + 1)?));
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(Value::String(item(&inner[start..], items.len() + 1)?));
    Ok(items)
}

fn item(raw: &str, index: usize) -> Result<String, usize> {
    let t = raw.trim();
    if t.is_empty() {
        return Err(index);
    }
    for q in ['"', '\''] {
        if t.len() >= 2 && t.starts_with(q) && t.ends_with(q) {
            let body = &t[1..t.len() - 1];
            if q == '"' {
                // A JSON string literal: decode its escapes when it is valid JSON.
                if let Ok(s) = serde_json::from_str::<String>(t) {
                    return Ok(s);
                }
            }
            return Ok(body.to_string());
        }
    }
    Ok(t.to_string())
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn splits_plain_items() {
        assert_eq!(split("a, b ,c").unwrap(), vec!["a", "b", "c"]);
    }

    #[test]
    fn keeps_quoted_commas_and_nested_brackets() {
        assert_eq!(split("\"a, b\", [c, d], 'e'").unwrap(), vec!["a, b", "[c, d]", "e"]);
    }

    #[test]
    fn empty_list_and_empty_items() {
        assert!(split("  ").unwrap().is_empty());
        assert_eq!(split("a,,b"), Err(2));
        assert_eq!(split("a,"), Err(2));
    }
}
