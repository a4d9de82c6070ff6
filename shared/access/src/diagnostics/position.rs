//! Byte offsets in a condition turned into the `line:column` people read.

/// 1-based `(line, column)` of byte `offset` in `source`; columns count characters.
pub(crate) fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// `"line:column"` of byte `offset` in `source`.
pub(crate) fn describe(source: &str, offset: usize) -> String {
    let (line, column) = line_col(source, offset);
    format!("{line}:{column}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_line_and_later_lines() {
        assert_eq!(line_col("abc", 0), (1, 1));
        assert_eq!(line_col("abc", 2), (1, 3));
        assert_eq!(line_col("ab\ncd", 3), (2, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("é=x", 2), (1, 2));
        assert_eq!(line_col("ab", 99), (1, 3));
    }
}
