//! Parameter conversion table: each Bedrock type with good values, bad values and the exact error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bedrock_action_group::convert::convert;
use serde_json::{Value, json};

fn ok(kind: &str, value: &str) -> Value {
    convert("p", kind, value).unwrap_or_else(|e| panic!("{kind} {value:?}: {e}"))
}

fn err(kind: &str, value: &str) -> String {
    match convert("p", kind, value) {
        Ok(v) => panic!("{kind} {value:?} converted to {v}"),
        Err(e) => {
            assert_eq!(e.pointer, "/p");
            e.message
        }
    }
}

/// Each good value of `kind` converts to its JSON; each bad one fails with its message.
fn check(kind: &str, good: &[(&str, Value)], bad: &[(&str, &str)]) {
    for (s, v) in good {
        assert_eq!(&ok(kind, s), v, "{s}");
    }
    for (s, m) in bad {
        assert_eq!(err(kind, s), *m, "{s}");
    }
}

#[test]
fn strings_are_kept_verbatim() {
    for s in ["", "hello", " padded ", "12abc", "[a, b]", "{\"a\":1}", "\u{0}\u{1f}", "é✓"] {
        assert_eq!(ok("string", s), json!(s));
    }
}

#[test]
fn unknown_types_are_kept_as_strings() {
    assert_eq!(ok("date", "2024-01-01"), json!("2024-01-01"));
    assert_eq!(ok("", "x"), json!("x"));
}

#[test]
fn numbers() {
    let good = [
        ("12", json!(12)),
        ("-7", json!(-7)),
        ("+4", json!(4)),
        ("12.5", json!(12.5)),
        ("-0.25", json!(-0.25)),
        (".5", json!(0.5)),
        ("2e3", json!(2000.0)),
        ("1E-2", json!(0.01)),
        ("18446744073709551615", json!(18_446_744_073_709_551_615u64)),
        ("18446744073709551616", json!(18_446_744_073_709_551_616f64)),
    ];
    let bad = [
        ("12abc", r#"expected a number, got "12abc""#),
        ("", r#"expected a number, got """#),
        (" 12", r#"expected a number, got " 12""#),
        ("12 ", r#"expected a number, got "12 ""#),
        ("1,5", r#"expected a number, got "1,5""#),
        ("0x10", r#"expected a number, got "0x10""#),
        ("abc", r#"expected a number, got "abc""#),
        ("-", r#"expected a number, got "-""#),
        ("e5", r#"expected a number, got "e5""#),
        ("1e", r#"expected a number, got "1e""#),
        ("1.2.3", r#"expected a number, got "1.2.3""#),
        ("NaN", r#"expected a number, got "NaN""#),
        ("inf", r#"expected a number, got "inf""#),
        ("infinity", r#"expected a number, got "infinity""#),
        ("1e400", r#"expected a finite number, got "1e400""#),
        ("-1e400", r#"expected a finite number, got "-1e400""#),
    ];
    check("number", &good, &bad);
}

#[test]
fn integers() {
    let good = [
        ("0", json!(0)),
        ("42", json!(42)),
        ("-42", json!(-42)),
        ("+42", json!(42)),
        ("007", json!(7)),
        ("-9223372036854775808", json!(i64::MIN)),
        ("18446744073709551615", json!(u64::MAX)),
    ];
    let bad = [
        ("1.5", r#"expected an integer, got "1.5""#),
        ("1.0", r#"expected an integer, got "1.0""#),
        ("1e3", r#"expected an integer, got "1e3""#),
        ("12abc", r#"expected an integer, got "12abc""#),
        ("", r#"expected an integer, got """#),
        ("-", r#"expected an integer, got "-""#),
        (" 1", r#"expected an integer, got " 1""#),
        ("18446744073709551616", r#"integer out of range, got "18446744073709551616""#),
        ("-9223372036854775809", r#"integer out of range, got "-9223372036854775809""#),
    ];
    check("integer", &good, &bad);
}

#[test]
fn booleans() {
    for (s, b) in
        [("true", true), ("TRUE", true), ("True", true), ("false", false), ("fAlSe", false)]
    {
        assert_eq!(ok("boolean", s), json!(b), "{s}");
    }
    for s in ["yes", "no", "1", "0", "", " true", "true ", "t", "truee"] {
        assert_eq!(err("boolean", s), format!("expected true or false, got {s:?}"), "{s}");
    }
}

#[test]
fn arrays() {
    let good = [
        ("[]", json!([])),
        ("[1, 2.5, \"x\", true, null]", json!([1, 2.5, "x", true, null])),
        ("[{\"a\": [1]}]", json!([{"a": [1]}])),
        ("[a, b, c]", json!(["a", "b", "c"])),
        ("[ a ,b ]", json!(["a", "b"])),
        ("[New York, Los Angeles]", json!(["New York", "Los Angeles"])),
        ("[1, two]", json!(["1", "two"])),
        ("['a', 'b, c']", json!(["a", "b, c"])),
        ("[\"a\\\"b\", c]", json!(["a\"b", "c"])),
        ("[[a, b], [c]]", json!(["[a, b]", "[c]"])),
        ("[ ]", json!([])),
        (" [a] ", json!(["a"])),
    ];
    let bad = [
        ("a, b", r#"expected a JSON array or a [a, b] list, got "a, b""#),
        ("", r#"expected a JSON array or a [a, b] list, got """#),
        ("{\"a\":1}", r#"expected a JSON array or a [a, b] list, got "{\"a\":1}""#),
        ("[a, b", r#"expected a JSON array or a [a, b] list, got "[a, b""#),
        ("[a,,b]", r#"empty element 2 in list "[a,,b]""#),
        ("[a, ]", r#"empty element 2 in list "[a, ]""#),
        ("[, a]", r#"empty element 1 in list "[, a]""#),
    ];
    check("array", &good, &bad);
}

#[test]
fn objects() {
    assert_eq!(ok("object", "{\"a\": 1, \"b\": [true]}"), json!({"a": 1, "b": [true]}));
    assert_eq!(err("object", "[1]"), r#"expected a JSON object, got "[1]""#);
    assert_eq!(
        err("object", "{a: 1}"),
        r#"expected a JSON object, got "{a: 1}" (key must be a string at line 1 column 2)"#
    );
}

#[test]
fn long_values_are_cut_in_messages() {
    let long = "x".repeat(500);
    let m = err("number", &long);
    assert_eq!(m, format!("expected a number, got \"{}\"...", "x".repeat(80)));
}
