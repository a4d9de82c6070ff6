//! The CEL specification's own conformance cases (cel-spec `tests/simple/testdata`,
//! Apache-2.0), run through the registry's evaluation for the subset it supports, and
//! through the unmodified `cel` crate: where the two answer differently, the registry
//! has a bug. Prints the pass count of each file (docs/rules.md has the table).
//!
//! The cases come from the file named by `CEL_CONFORMANCE_JSON`, which
//! `scripts/cel-conformance.sh` makes; the test is `#[ignore]`d, and `scripts/test.sh`
//! sets the variable and runs the ignored tests too.
//!
//! The subset: cases without variable bindings, type environments or containers, whose
//! expected result is an error or a value that CEL can write as a literal (no
//! messages, enums, types, NaN or infinities). A case becomes one condition: the
//! expression itself when the result is a `bool`; `(expr) == <expected>` for another
//! value; `size([(expr)]) == 1` when an error is expected. Conditions the registry's
//! write checks refuse (a name it does not declare, its bounds) are counted apart.

use base64::Engine;
mod common;

use common::Outcome;
use registry_access::PreparedContext;
use serde_json::Value as Json;
use std::fmt::Write;

/// One case of the subset.
struct Case {
    name: String,
    condition: String,
    expected: Outcome,
}

/// Counts for one file.
#[derive(Default)]
struct FileCount {
    cases: usize,
    unsupported: usize,
    refused: usize,
    passed: usize,
}

/// `value` (a `cel.expr.Value` in proto JSON) as a CEL literal, when it has one.
fn literal(value: &Json) -> Option<String> {
    let (kind, v) = value.as_object()?.iter().next()?;
    Some(match kind.as_str() {
        "boolValue" => v.as_bool()?.to_string(),
        "int64Value" => v.as_str()?.parse::<i64>().ok()?.to_string(),
        "uint64Value" => format!("{}u", v.as_str()?.parse::<u64>().ok()?),
        "doubleValue" => {
            let d = v.as_f64().filter(|d| d.is_finite())?;
            format!("{d:?}")
        }
        "stringValue" => string_literal(v.as_str()?),
        "bytesValue" => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(v.as_str()?).ok()?;
            let mut out = String::from("b\"");
            for b in bytes {
                let _ = write!(out, "\\x{b:02x}");
            }
            out + "\""
        }
        "nullValue" => "null".to_owned(),
        "listValue" => {
            let items = v.get("values").and_then(Json::as_array).map(Vec::as_slice).unwrap_or(&[]);
            let items: Option<Vec<String>> = items.iter().map(literal).collect();
            format!("[{}]", items?.join(", "))
        }
        "mapValue" => {
            let entries =
                v.get("entries").and_then(Json::as_array).map(Vec::as_slice).unwrap_or(&[]);
            let entries: Option<Vec<String>> = entries
                .iter()
                .map(|e| {
                    Some(format!("{}: {}", literal(e.get("key")?)?, literal(e.get("value")?)?))
                })
                .collect();
            format!("{{{}}}", entries?.join(", "))
        }
        _ => return None,
    })
}

/// `text` as a double-quoted CEL string literal.
fn string_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out + "\""
}

/// The case's condition and expected outcome, when the case is in the subset.
fn case(test: &Json) -> Option<Case> {
    let o = test.get("original")?;
    for unsupported in ["bindings", "typeEnv", "container", "checkOnly", "typedResult"] {
        if o.get(unsupported).is_some() {
            return None;
        }
    }
    let expr = o.get("expr")?.as_str()?;
    let (condition, expected) = if o.get("evalError").is_some() {
        (format!("size([({expr})]) == 1"), Outcome::Error)
    } else {
        match o.get("value")?.get("boolValue") {
            Some(Json::Bool(true)) => (expr.to_owned(), Outcome::Matched),
            Some(_) => (expr.to_owned(), Outcome::NotMatched),
            None => (format!("({expr}) == {}", literal(o.get("value")?)?), Outcome::Matched),
        }
    };
    Some(Case { name: o.get("name")?.as_str()?.to_owned(), condition, expected })
}

fn run(cases: &Json) -> Result<String, String> {
    let context = PreparedContext::from_json(b"{}").map_err(|e| format!("{e:?}"))?;
    let mut table = String::from(
        "| file | cases | in the subset | refused on write | passed |\n| --- | ---: | ---: | ---: | ---: |\n",
    );
    let mut total = FileCount::default();
    let mut divergences = Vec::new();
    let files = cases.get("suites").and_then(Json::as_array).ok_or("no suites")?;
    for file in files {
        let name = file.get("name").and_then(Json::as_str).unwrap_or("?");
        let mut count = FileCount::default();
        for section in file.get("suites").and_then(Json::as_array).map(Vec::as_slice).unwrap_or(&[])
        {
            for test in
                section.get("tests").and_then(Json::as_array).map(Vec::as_slice).unwrap_or(&[])
            {
                count.cases += 1;
                let Some(case) = case(test) else {
                    count.unsupported += 1;
                    continue;
                };
                let Some(got) = common::registry(&case.condition, &context) else {
                    count.refused += 1;
                    continue;
                };
                let want = common::reference(&case.condition, &cel::Context::default())
                    .unwrap_or(Outcome::Error);
                if got != want {
                    divergences.push(format!(
                        "{name}/{}: `{}`: registry {got:?}, cel crate {want:?}",
                        case.name, case.condition
                    ));
                }
                if got == case.expected {
                    count.passed += 1;
                }
            }
        }
        let subset = count.cases - count.unsupported;
        let _ = writeln!(
            table,
            "| {name} | {} | {subset} | {} | {} |",
            count.cases, count.refused, count.passed
        );
        total.cases += count.cases;
        total.unsupported += count.unsupported;
        total.refused += count.refused;
        total.passed += count.passed;
    }
    let _ = writeln!(
        table,
        "| all | {} | {} | {} | {} |",
        total.cases,
        total.cases - total.unsupported,
        total.refused,
        total.passed
    );
    if !divergences.is_empty() {
        return Err(format!(
            "{table}\nthe registry differs from the cel crate:\n{}",
            divergences.join("\n")
        ));
    }
    // a floor, so that a change that loses conformance shows (the figure in docs/rules.md)
    if total.passed < PASSED_AT_LEAST {
        return Err(format!("{table}\n{} passed, fewer than {PASSED_AT_LEAST}", total.passed));
    }
    Ok(table)
}

/// Cases passed with `cel` 0.15.0 and cel-spec as `@bufbuild/cel-spec` 0.6.1 ships it.
const PASSED_AT_LEAST: usize = 1054;

#[test]
#[ignore = "needs CEL_CONFORMANCE_JSON (scripts/cel-conformance.sh prints it)"]
fn cel_spec_conformance_through_the_registry() {
    let path = std::env::var("CEL_CONFORMANCE_JSON")
        .expect("CEL_CONFORMANCE_JSON is not set: scripts/cel-conformance.sh makes the file");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cases: Json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    // the `cel` parser recurses deeply on the spec's nesting cases
    let outcome = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || run(&cases))
        .and_then(|h| h.join().map_err(|_| std::io::Error::other("the run panicked")));
    match outcome {
        Ok(Ok(table)) => println!("{table}"),
        Ok(Err(failure)) => panic!("{failure}"),
        Err(e) => panic!("{e}"),
    }
}
