//! Printing results as tables or JSON.

use comfy_table::{Table, presets::UTF8_BORDERS_ONLY};
use serde_json::Value;

use crate::admin::Collection;
use crate::args::OutputFormat;

/// Prints a list of definitions.
pub fn list(collection: Collection, items: &[Value], next: Option<&str>, format: OutputFormat) {
    if format == OutputFormat::Json {
        let page = serde_json::json!({"items": items, "nextCursor": next});
        println!("{}", serde_json::to_string_pretty(&page).unwrap_or_default());
        return;
    }
    let mut table = Table::new();
    table.load_preset(UTF8_BORDERS_ONLY);
    match collection {
        Collection::Agents => {
            table.set_header(["AGENT ID", "VERSION", "STATUS", "TOOLS", "UPDATED", "BY"]);
            for a in items {
                table.add_row([
                    text(&a["agentId"]),
                    text(&a["version"]),
                    status(a),
                    a["toolIds"].as_array().map_or(0, Vec::len).to_string(),
                    text(&a["updatedAt"]),
                    text(&a["lastModifiedBy"]),
                ]);
            }
        }
        Collection::Tools => {
            table.set_header(["TOOL ID", "VERSION", "TYPE", "STATUS", "NAME", "UPDATED", "BY"]);
            for t in items {
                table.add_row([
                    text(&t["toolId"]),
                    text(&t["version"]),
                    text(&t["executionType"]),
                    status(t),
                    text(&t["name"]),
                    text(&t["updatedAt"]),
                    text(&t["lastModifiedBy"]),
                ]);
            }
        }
    }
    println!("{table}");
    if let Some(cursor) = next {
        println!("more results: --all, or the API with cursor={cursor}");
    }
}

/// Prints one definition: its top-level fields as a table, or the JSON.
pub fn one(item: &Value, format: OutputFormat) {
    if format == OutputFormat::Json {
        println!("{}", serde_json::to_string_pretty(item).unwrap_or_default());
        return;
    }
    let mut table = Table::new();
    table.load_preset(UTF8_BORDERS_ONLY);
    table.set_header(["FIELD", "VALUE"]);
    for (key, value) in item.as_object().into_iter().flatten() {
        let shown = match value {
            Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).unwrap_or_default(),
        };
        table.add_row([key.clone(), shown]);
    }
    println!("{table}");
}

/// A Lambda verification: JSON as is, or `ok: true, no findings`, else `ok: false` and
/// one line per finding, `CODE (severity): message`, with its `remedy:` line.
pub fn verification(report: &Value, format: OutputFormat) {
    if format == OutputFormat::Json {
        return one(report, format);
    }
    let findings = report["findings"].as_array().map(Vec::as_slice).unwrap_or_default();
    let ok = report["ok"] == Value::Bool(true);
    match findings.is_empty() {
        true => println!("ok: {ok}, no findings"),
        false => println!("ok: {ok}"),
    }
    for finding in findings {
        println!(
            "{} ({}): {}",
            text(&finding["code"]),
            text(&finding["severity"]),
            text(&finding["message"])
        );
        if let Some(remedy) = finding["remedy"].as_str() {
            println!("remedy: {remedy}");
        }
    }
}

/// A test invocation: JSON as is (the event sent and the raw answer too), or one line,
/// `responseState <REPROMPT, FAILURE or null>, body <the response body>`.
pub fn invocation(report: &Value, format: OutputFormat) {
    if format == OutputFormat::Json {
        return one(report, format);
    }
    let state = report["responseState"].as_str().unwrap_or("null");
    println!("responseState {state}, body {}", text(&report["body"]));
}

/// A JSON value as table text: strings bare, null empty, anything else as JSON.
pub(crate) fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn status(v: &Value) -> String {
    v["lifecycle"]["status"].as_str().unwrap_or("active").to_owned()
}

/// A publish report or drift check: JSON as is, or one line per planned call (the
/// collaborators' publishes first) and the publication.
pub fn publication(report: &Value, format: OutputFormat) {
    if format == OutputFormat::Json {
        one(report, format);
        return;
    }
    print_plan(report, "");
    if let Some(p) = report.get("publication").filter(|p| p.is_object()) {
        println!(
            "published: Bedrock agent {} version {}, alias {}",
            text(&p["bedrockAgentId"]),
            text(&p["agentVersion"]),
            text(&p["aliasArn"])
        );
    }
    if let Some(in_sync) = report.get("inSync") {
        println!("in sync: {in_sync}");
    }
}

/// The planned calls of `report`, its collaborators' first, indented by `indent`.
fn print_plan(report: &Value, indent: &str) {
    for collaborator in report["collaborators"].as_array().into_iter().flatten() {
        print_plan(collaborator, &format!("{indent}  "));
    }
    let calls = report["plan"].as_array().map(Vec::as_slice).unwrap_or_default();
    let verb = if report["dryRun"] == Value::Bool(true) { "would make" } else { "made" };
    if calls.is_empty() {
        println!("{indent}no calls: Bedrock already matches");
    }
    for (i, call) in calls.iter().enumerate() {
        let subject = ["agentName", "name", "id"]
            .iter()
            .find_map(|key| call.get(*key).or_else(|| call.get("spec").and_then(|s| s.get(*key))))
            .map(text)
            .unwrap_or_default();
        let changes = call["changes"]
            .as_object()
            .map(|c| c.keys().cloned().collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        let line =
            format!("{indent}{verb} {:>2}. {} {subject}{changes}", i + 1, text(&call["call"]));
        println!("{}", line.trim_end());
    }
}

/// Prints a tool search's results: best first, with the function that matched and why.
pub fn search(answer: &Value) {
    let mut table = Table::new();
    table.load_preset(UTF8_BORDERS_ONLY);
    table.set_header(["TOOL ID", "FUNCTION", "SCORE", "WHY"]);
    for hit in answer["results"].as_array().into_iter().flatten() {
        let why: Vec<String> = hit["matched"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| {
                let terms: Vec<&str> =
                    m["terms"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                format!("{}: {}", text(&m["field"]), terms.join(" "))
            })
            .collect();
        let score = hit["score"].as_f64().map_or_else(String::new, |s| format!("{s:.2}"));
        table.add_row([text(&hit["toolId"]), text(&hit["function"]), score, why.join("; ")]);
    }
    println!("{table}");
}
