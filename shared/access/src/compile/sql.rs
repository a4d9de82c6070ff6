//! Detection of SQL-style conditions (`=`, `<>`, `AND`, `OR`, `NOT`, `IN (...)`,
//! `IS NULL`) before parsing, with a suggested CEL rewrite. String literals are
//! skipped, so `'a = b'` is left alone.

use crate::compile::lexer::{Kind, Token, tokens};
use crate::diagnostics::position;

/// The SQL-isms found in a condition and the CEL it most likely meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SqlFinding {
    /// Byte offset of the first SQL-ism.
    pub offset: usize,
    /// The SQL spellings found, in order, deduplicated (e.g. `=`, `AND`).
    pub found: Vec<String>,
    /// The condition rewritten in CEL.
    pub rewrite: String,
}

impl SqlFinding {
    /// The message reported for this finding.
    pub(crate) fn message(&self, source: &str) -> String {
        let found = self.found.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ");
        format!(
            "{}: SQL-style condition ({found}) is not CEL; CEL uses `==`, `!=`, `&&`, `||`, `!`, `in [..]`. Suggested CEL: {}",
            position::describe(source, self.offset),
            self.rewrite
        )
    }
}

/// One replacement of a byte range by CEL text.
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

/// Finds SQL-isms outside string literals; `None` when there are none.
pub(crate) fn detect(source: &str) -> Option<SqlFinding> {
    let toks = tokens(source);
    // indexes of the non-space tokens, to look at neighbours
    let sig: Vec<usize> = (0..toks.len()).filter(|&i| toks[i].kind != Kind::Space).collect();
    let mut edits: Vec<Edit> = Vec::new();
    let mut found: Vec<String> = Vec::new();
    let mut first: Option<usize> = None;
    let mut note = |spelling: &str, offset: usize, found: &mut Vec<String>| {
        if !found.iter().any(|f| f == spelling) {
            found.push(spelling.to_string());
        }
        first = Some(first.map_or(offset, |f: usize| f.min(offset)));
    };
    let mut s = 0;
    while s < sig.len() {
        let t = toks[sig[s]];
        let prev = s.checked_sub(1).map(|p| toks[sig[p]]);
        let next = sig.get(s + 1).map(|&n| toks[n]);
        let after_dot = prev.is_some_and(|p| p.text == ".");
        let upper = t.text.to_ascii_uppercase();
        match (t.kind, t.text) {
            (Kind::Punct, "=")
                if prev.is_some_and(|p| p.end() == t.start && p.text.ends_with('=')) =>
            {
                // `===` / `!==`: the JavaScript spellings of `==` / `!=`
                let spelling = format!("{}=", prev.map_or("", |p| p.text));
                note(&spelling, t.start, &mut found);
                edits.push(edit(t, ""));
            }
            (Kind::Punct, "=") => {
                note("=", t.start, &mut found);
                edits.push(edit(t, "=="));
            }
            (Kind::Punct, "<>") => {
                note("<>", t.start, &mut found);
                edits.push(edit(t, "!="));
            }
            (Kind::Word, _) if !after_dot && (upper == "AND" || upper == "OR") => {
                note(&upper, t.start, &mut found);
                edits.push(edit(t, if upper == "AND" { "&&" } else { "||" }));
            }
            (Kind::Word, _)
                if !after_dot
                    && upper == "NOT"
                    && next.is_some_and(|n| n.text.eq_ignore_ascii_case("in")) =>
            {
                // `a NOT IN (x, y)` -> `!(a in [x, y])`
                note("NOT IN", t.start, &mut found);
                let operand_start = operand_start(&toks, &sig, s);
                edits.push(Edit { start: operand_start, end: operand_start, text: "!(".into() });
                // drop `NOT` and the space after it
                let in_pos = s + 1;
                edits.push(Edit {
                    start: t.start,
                    end: toks[sig[in_pos]].start,
                    text: String::new(),
                });
                let close = in_list(&toks, &sig, in_pos, &mut edits);
                let after = close.unwrap_or_else(|| toks[sig[in_pos]].end());
                edits.push(Edit { start: after, end: after, text: ")".into() });
                s = in_pos + 1;
                continue;
            }
            (Kind::Word, _) if !after_dot && upper == "NOT" => {
                note("NOT", t.start, &mut found);
                edits.push(edit(t, "!"));
            }
            (Kind::Word, "IN") if !after_dot => {
                note("IN", t.start, &mut found);
                in_list(&toks, &sig, s, &mut edits);
            }
            (Kind::Word, "in") if !after_dot => {
                let before = edits.len();
                if in_list(&toks, &sig, s, &mut edits).is_some() && edits.len() > before + 1 {
                    note("IN (...)", t.start, &mut found);
                } else {
                    edits.truncate(before);
                }
            }
            (Kind::Word, _) if !after_dot && upper == "IS" => {
                let n1 = next.map(|n| n.text.to_ascii_uppercase());
                let n2 = sig.get(s + 2).map(|&n| toks[n].text.to_ascii_uppercase());
                if n1.as_deref() == Some("NULL") {
                    note("IS NULL", t.start, &mut found);
                    let end = toks[sig[s + 1]].end();
                    edits.push(Edit { start: t.start, end, text: "== null".into() });
                    s += 2;
                    continue;
                }
                if n1.as_deref() == Some("NOT") && n2.as_deref() == Some("NULL") {
                    note("IS NOT NULL", t.start, &mut found);
                    let end = toks[sig[s + 2]].end();
                    edits.push(Edit { start: t.start, end, text: "!= null".into() });
                    s += 3;
                    continue;
                }
            }
            (Kind::Word, "TRUE" | "FALSE" | "NULL") if !after_dot => {
                edits.push(edit(t, &t.text.to_ascii_lowercase()));
            }
            _ => {}
        }
        s += 1;
    }
    let offset = first?;
    Some(SqlFinding { offset, found, rewrite: apply(source, edits) })
}

fn edit(t: Token<'_>, text: &str) -> Edit {
    Edit { start: t.start, end: t.end(), text: text.into() }
}

/// Start of the operand before the token at `sig[s]`: a dotted path, a literal or a
/// bracketed group.
fn operand_start(toks: &[Token<'_>], sig: &[usize], s: usize) -> usize {
    let mut p = s;
    let mut depth = 0usize;
    let mut start = toks[sig[s]].start;
    while p > 0 {
        let t = toks[sig[p - 1]];
        match t.text {
            ")" | "]" => depth += 1,
            "(" | "[" if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            "." => {}
            _ if matches!(t.kind, Kind::Word | Kind::Str) => {}
            _ if t.text.chars().all(|c| c.is_ascii_digit()) => {}
            _ => break,
        }
        // a word directly after another word means we walked past the operand
        if depth == 0
            && matches!(t.kind, Kind::Word | Kind::Str)
            && p < s
            && matches!(toks[sig[p]].kind, Kind::Word | Kind::Str)
        {
            break;
        }
        start = t.start;
        p -= 1;
    }
    start
}

/// For `IN` at `sig[s]`: lowercases it and turns a following `( a, b )` into `[ a, b ]`.
/// Returns the byte after the list when there was a parenthesized one with a
/// top-level comma (or only one element).
fn in_list(toks: &[Token<'_>], sig: &[usize], s: usize, edits: &mut Vec<Edit>) -> Option<usize> {
    let t = toks[sig[s]];
    edits.push(edit(t, "in"));
    let open = toks[*sig.get(s + 1)?];
    if open.text != "(" {
        return None;
    }
    let mut depth = 0usize;
    let mut commas = 0usize;
    for &i in &sig[s + 1..] {
        let u = toks[i];
        match u.text {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    if u.text != ")" {
                        return None;
                    }
                    if commas == 0 && t.text == "in" {
                        return None;
                    }
                    edits.push(edit(open, "["));
                    edits.push(edit(u, "]"));
                    return Some(u.end());
                }
            }
            "," if depth == 1 => commas += 1,
            _ => {}
        }
    }
    None
}

/// Applies non-overlapping edits (insertions allowed) to `source`.
fn apply(source: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(source.len() + 8);
    let mut at = 0;
    for e in edits {
        if e.start < at {
            continue;
        }
        out.push_str(source.get(at..e.start).unwrap_or(""));
        out.push_str(&e.text);
        at = e.end;
    }
    out.push_str(source.get(at..).unwrap_or(""));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(s: &str) -> String {
        detect(s).map(|f| f.rewrite).unwrap_or_default()
    }

    #[test]
    fn the_acceptance_example() {
        let f = detect("user.userType = 'internal-user' AND customData.tier = 'premium'").unwrap();
        assert_eq!(f.rewrite, "user.userType == 'internal-user' && customData.tier == 'premium'");
        assert_eq!(f.found, vec!["=".to_string(), "AND".to_string()]);
        assert_eq!(f.offset, 14);
    }

    #[test]
    fn strings_are_left_alone() {
        assert_eq!(detect("user.email == 'a = b AND c'"), None);
        assert_eq!(detect(r#"user.email == "x <> y OR NOT z""#), None);
        assert_eq!(detect("user.email == '''a = ''b'' = c'''"), None);
        assert_eq!(detect(r"user.email == 'it\'s = x'"), None);
        assert_eq!(
            rewrite("user.email = 'a = b' OR user.userType <> 'x'"),
            "user.email == 'a = b' || user.userType != 'x'"
        );
    }

    #[test]
    fn cel_is_not_flagged() {
        for ok in [
            "user.userType == 'internal-user' && customData.tier == 'premium'",
            "'site-admin' in user.roles || !(user.email != 'x')",
            "customData.accountId in ['a', 'b']",
            "customData.x <= 3 && customData.y >= 4",
            "customData.and == 1",
            "customData.x in (['a'])",
        ] {
            assert_eq!(detect(ok), None, "{ok}");
        }
    }

    #[test]
    fn in_lists_and_negations() {
        assert_eq!(rewrite("account.type IN ('a', 'b')"), "account.type in ['a', 'b']");
        assert_eq!(rewrite("account.type in ('a', 'b')"), "account.type in ['a', 'b']");
        assert_eq!(rewrite("account.type NOT IN ('a', 'b')"), "!(account.type in ['a', 'b'])");
        assert_eq!(rewrite("NOT user.email IS NULL"), "! user.email == null");
        assert_eq!(rewrite("user.email IS NOT NULL"), "user.email != null");
        assert_eq!(rewrite("a = TRUE or b = FALSE"), "a == true || b == false");
        assert_eq!(rewrite("a === 1 && b !== 2"), "a == 1 && b != 2");
    }
}
