//! Pieces of the agent and tool pages: properties, access rules, releases, the edit
//! and lifecycle controls (only for editors; the service still checks every write).

use registry_api::Role;
use registry_api::http::params::ListParams;
use registry_core::ToolDefinition;
use serde_json::Value;

use crate::Console;
use crate::html::{Html, url_component};
use crate::page::{badge, csrf_field, json_text, link, status_of, str_of};
use crate::session::Session;

/// A definition-list of `(label, JSON member)` pairs present in `v`.
pub fn props(h: &mut Html, v: &Value, fields: &[(&'static str, &str)]) {
    h.raw("<dl class=\"props\">");
    for (label, key) in fields {
        match v.get(*key) {
            None | Some(Value::Null) => {}
            Some(value) => {
                h.raw("<dt>").raw(label).raw("</dt><dd data-field=\"").text(key).raw("\">");
                h.text(&json_text(value)).raw("</dd>");
            }
        }
    }
    h.raw("<dt>Status</dt><dd>");
    badge(h, status_of(v));
    h.raw("</dd>");
    if let Some(version) = v.get("version").and_then(Value::as_u64) {
        h.raw("<dt>Version</dt><dd id=\"version\">").num(version).raw("</dd>");
    }
    for (label, key) in [
        ("Created", "createdAt"),
        ("Created by", "createdBy"),
        ("Updated", "updatedAt"),
        ("Updated by", "lastModifiedBy"),
    ] {
        if let Some(s) = v.get(key).and_then(Value::as_str) {
            h.raw("<dt>").raw(label).raw("</dt><dd>").text(s).raw("</dd>");
        }
    }
    if v.get("tags").and_then(Value::as_object).is_some_and(|t| !t.is_empty()) {
        h.raw("<dt>Tags</dt><dd>");
        crate::page::tags(h, v);
        h.raw("</dd>");
    }
    h.raw("</dl>");
}

/// The access rules of `v` as a table, in the order written (columns: every member the
/// rules have, the usual ones first).
pub fn rules(h: &mut Html, v: &Value, heading: &'static str) {
    h.el("<h2>", heading, "</h2>");
    let Some(rules) = v.get("accessRules").and_then(Value::as_array).filter(|r| !r.is_empty())
    else {
        h.raw("<p class=\"muted\">No access rules: everyone who can reach it may use it.</p>");
        return;
    };
    rule_table(h, rules, "rules");
}

/// The call rules of tool `v` (checked on each call's arguments) as a table.
pub fn call_rules(h: &mut Html, v: &Value) {
    h.raw("<h2>Call rules</h2>");
    let Some(rules) = v.get("callRules").and_then(Value::as_array).filter(|r| !r.is_empty()) else {
        h.raw("<p class=\"muted\">No call rules: every call a principal may make is allowed.</p>");
        return;
    };
    rule_table(h, rules, "call-rules");
}

/// Rules as a table with the id `table_id`.
fn rule_table(h: &mut Html, rules: &[Value], table_id: &'static str) {
    let mut columns: Vec<String> =
        ["id", "effect", "mode", "order", "condition", "description"].map(String::from).to_vec();
    for rule in rules {
        for key in rule.as_object().map(|o| o.keys()).into_iter().flatten() {
            if !columns.contains(key) {
                columns.push(key.clone());
            }
        }
    }
    columns.retain(|c| rules.iter().any(|r| r.get(c).is_some()));
    h.raw("<div class=\"scroll\"><table class=\"rules\" id=\"")
        .raw(table_id)
        .raw("\"><thead><tr><th scope=\"col\">#</th>");
    for c in &columns {
        h.raw("<th scope=\"col\">").text(c).raw("</th>");
    }
    h.raw("</tr></thead><tbody>");
    for (i, rule) in rules.iter().enumerate() {
        h.raw("<tr><td>").num(i).raw("</td>");
        for c in &columns {
            let text = rule.get(c).map(json_text).unwrap_or_default();
            if c == "condition" {
                h.el("<td><code>", &text, "</code></td>");
            } else if c == "effect" {
                h.raw("<td>");
                badge(h, &text);
                h.raw("</td>");
            } else {
                h.el("<td>", &text, "</td>");
            }
        }
        h.raw("</tr>");
    }
    h.raw("</tbody></table></div>");
}

/// Every live release of the tool `name`, in semantic order (empty when none).
pub async fn releases(console: &Console, name: &str) -> Vec<ToolDefinition> {
    let params = ListParams(vec![("name".to_owned(), name.to_owned())]);
    let Ok(query) = params.to_query(registry_core::Kind::Tool, true) else {
        return Vec::new();
    };
    console
        .api
        .registry
        .catalog
        .list::<ToolDefinition>(&query)
        .await
        .map(|p| p.items)
        .unwrap_or_default()
}

/// Releases as table rows: release (link), status, version, description.
pub fn release_rows(h: &mut Html, releases: &[ToolDefinition], current: Option<&str>) {
    for r in releases {
        let v = serde_json::to_value(r).unwrap_or(Value::Null);
        h.raw("<tr><td>");
        link(h, "tools", &r.tool_id);
        if current == Some(r.tool_id.as_str()) {
            h.raw(" <span class=\"muted\">(this page)</span>");
        }
        h.raw("</td><td>");
        badge(h, status_of(&v));
        h.raw("</td><td>").num(r.server.version.unwrap_or(0)).el(
            "</td><td>",
            str_of(&v, "description"),
            "</td></tr>",
        );
    }
}

/// The links and buttons above a definition: history, and for editors edit and
/// disable or enable.
pub fn actions(h: &mut Html, session: &Session, path: &'static str, id: &str, v: &Value) {
    let id_url = url_component(id);
    h.raw("<div class=\"actions\">");
    h.raw("<a id=\"history-link\" href=\"/console/")
        .raw(path)
        .raw("/")
        .text(&id_url)
        .raw("/history\">History</a>");
    if path == "agents" {
        h.raw("<a id=\"resolve-link\" href=\"/console/agents/")
            .text(&id_url)
            .raw("/resolve\">Resolve as a user</a>");
    }
    if session.principal.has(Role::Editor) {
        h.raw("<a id=\"edit-link\" href=\"/console/")
            .raw(path)
            .raw("/")
            .text(&id_url)
            .raw("/edit\">Edit</a>");
        let (status, label) = match status_of(v) {
            "disabled" => ("active", "Enable"),
            "retired" => ("", ""),
            _ => ("disabled", "Disable"),
        };
        if !status.is_empty() {
            h.raw("<form method=\"post\" action=\"/console/")
                .raw(path)
                .raw("/")
                .text(&id_url)
                .raw("/lifecycle\">");
            csrf_field(h, session);
            h.raw("<input type=\"hidden\" name=\"version\" value=\"")
                .num(v.get("version").and_then(Value::as_u64).unwrap_or(0))
                .raw("\"><input type=\"hidden\" name=\"status\" value=\"")
                .raw(status)
                .raw("\"><button type=\"submit\" class=\"secondary\" id=\"lifecycle-button\">")
                .raw(label)
                .raw("</button></form>");
        }
    }
    h.raw("</div>");
}

/// The whole definition as JSON, folded.
pub fn source(h: &mut Html, v: &Value) {
    h.raw("<details><summary>Definition as JSON</summary>");
    crate::page::pre_json(h, v);
    h.raw("</details>");
}
