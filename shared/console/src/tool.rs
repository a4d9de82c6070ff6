//! The tool page: definition, function schema as a table, releases, access rules.

use axum::extract::{Path, Query, State};
use axum::response::Response;
use registry_api::Problem;
use registry_core::ToolDefinition;
use registry_types::Format;
use serde::Deserialize;
use serde_json::Value;

use crate::Console;
use crate::detail::{actions, call_rules, props, release_rows, releases, rules, source};
use crate::html::{Html, url_component};
use crate::page::{self, json_text, str_of};
use crate::session::{Session, SignedIn};

/// The tool page's query: a provider format to compile the schema to.
#[derive(Debug, Default, Deserialize)]
pub struct ToolForm {
    /// `json-schema`, `bedrock`, `openai`, `anthropic` or `mcp`.
    #[serde(default)]
    pub format: String,
}

/// The live tool `id` and its JSON as the pages show it, or the problem page.
pub(crate) async fn read(
    console: &Console,
    session: &Session,
    id: &str,
) -> Result<(ToolDefinition, Value), Response> {
    match console.api.registry.catalog.get::<ToolDefinition>(id).await {
        Ok(tool) => {
            let v = serde_json::to_value(&tool).unwrap_or(Value::Null);
            Ok((tool, v))
        }
        Err(e) => Err(page::problem(session, &Problem::from(e))),
    }
}

/// `GET /console/tools/{id}`.
pub async fn show(
    State(console): State<Console>,
    SignedIn(session): SignedIn,
    Path(id): Path<String>,
    Query(form): Query<ToolForm>,
) -> Response {
    let (tool, v) = match read(&console, &session, &id).await {
        Ok(read) => read,
        Err(page) => return page,
    };
    let mut h = Html::new();
    actions(&mut h, &session, "tools", &tool.tool_id, &v);
    props(
        &mut h,
        &v,
        &[
            ("Release", "toolId"),
            ("Action group name", "name"),
            ("Display name", "displayName"),
            ("Description", "description"),
            ("Execution type", "executionType"),
            ("Lambda", "lambdaArn"),
            ("URL", "url"),
            ("Timeout (s)", "executionTimeout"),
            ("Frameworks", "supportedAgentFrameworks"),
        ],
    );
    schema(&mut h, &v);
    compiled(&console, &mut h, &tool.tool_id, &form.format).await;
    let name = tool.tool_id.split_once('@').map_or(tool.tool_id.as_str(), |(n, _)| n);
    h.raw("<h2>Releases</h2><div class=\"scroll\"><table id=\"releases\"><thead><tr>")
        .raw("<th scope=\"col\">Release</th><th scope=\"col\">Status</th><th scope=\"col\">")
        .raw("Version</th><th scope=\"col\">Description</th></tr></thead><tbody>");
    let all = releases(&console, name).await;
    release_rows(&mut h, &all, Some(&tool.tool_id));
    h.raw("</tbody></table></div>");
    if all.len() > 1 {
        h.raw("<p><a id=\"compare-link\" href=\"/console/tools/").text(&url_component(name)).raw(
            "/compare\">Compare releases</a> (what changed, and whether it breaks callers)</p>",
        );
    }
    rules(&mut h, &v, "Access rules");
    call_rules(&mut h, &v);
    h.raw("<p><a id=\"authorize-link\" href=\"/console/tools/")
        .text(&url_component(&tool.tool_id))
        .raw("/authorize\">Authorize a call</a> (fill in arguments and a caller, see the decision)</p>");
    source(&mut h, &v);
    page::ok(&format!("Tool {}", tool.tool_id), &session, h)
}

/// Each function of the schema with its parameters as a table.
fn schema(h: &mut Html, v: &Value) {
    h.raw("<h2>Functions</h2>");
    let Some(functions) = v.get("functionSchema").and_then(Value::as_array) else {
        h.raw("<p class=\"muted\">No function schema.</p>");
        return;
    };
    for f in functions {
        h.el("<h3><code>", str_of(f, "name"), "</code></h3>").el(
            "<p>",
            str_of(f, "description"),
            "</p>",
        );
        let params = f.get("parameters").and_then(Value::as_object);
        let Some(params) = params.filter(|p| !p.is_empty()) else {
            h.raw("<p class=\"muted\">No parameters.</p>");
            continue;
        };
        h.raw("<div class=\"scroll\"><table class=\"schema\"><thead><tr><th scope=\"col\">")
            .raw("Parameter</th><th scope=\"col\">Type</th><th scope=\"col\">Required</th>")
            .raw("<th scope=\"col\">Description</th></tr></thead><tbody>");
        for (name, p) in params {
            let mut kind = p.clone();
            if let Some(o) = kind.as_object_mut() {
                o.remove("description");
                o.remove("required");
            }
            let kind = match kind.as_object() {
                Some(o) if o.len() == 1 && o.contains_key("type") => {
                    str_of(&kind, "type").to_owned()
                }
                _ => json_text(&kind),
            };
            let required = p.get("required").and_then(Value::as_bool).unwrap_or(false);
            h.el("<tr><td><code>", name, "</code></td>")
                .el("<td><code>", &kind, "</code></td>")
                .raw(if required { "<td>yes</td>" } else { "<td>no</td>" })
                .el("<td>", str_of(p, "description"), "</td></tr>");
        }
        h.raw("</tbody></table></div>");
    }
    if let Some(types) = v.get("types") {
        h.raw("<details><summary>Named types</summary>");
        page::pre_json(h, types);
        h.raw("</details>");
    }
}

/// The schema compiled for one provider format, with what that format cannot express.
async fn compiled(console: &Console, h: &mut Html, id: &str, format: &str) {
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
    let chosen = if format.is_empty() { "bedrock" } else { format };
    h.raw("<h2>Schema for a provider</h2><form class=\"filters\" method=\"get\" action=\"/console/tools/")
        .text(&url_component(id))
        .raw("#schema-for\"><div><label for=\"format\">Format</label><select id=\"format\" name=\"format\">");
    crate::lists::options(h, chosen, &names);
    h.raw("</select></div><div><button type=\"submit\">Show</button></div></form>");
    let Ok(format) = chosen.parse::<Format>() else {
        h.raw("<p class=\"error\" role=\"alert\">Pick a format from the list.</p>");
        return;
    };
    match console.api.registry.catalog.tool_schema(id, format).await {
        Ok(compiled) => {
            let v = serde_json::to_value(&compiled).unwrap_or(Value::Null);
            let report = v.get("report").and_then(Value::as_array).cloned().unwrap_or_default();
            h.raw("<div id=\"schema-for\">");
            if report.is_empty() {
                h.raw("<p id=\"compat\">Lossless: ")
                    .text(format.as_str())
                    .raw(" expresses every type.</p>");
            } else {
                h.raw("<div class=\"scroll\"><table id=\"compat\"><thead><tr><th scope=\"col\">Where</th>")
                    .raw("<th scope=\"col\">Cannot express</th><th scope=\"col\">Mapped as</th>")
                    .raw("<th scope=\"col\">Blocking</th></tr></thead><tbody>");
                for issue in &report {
                    let blocking = issue.get("blocking").and_then(Value::as_bool).unwrap_or(false);
                    h.el("<tr><td><code>", str_of(issue, "path"), "</code></td>")
                        .el("<td>", str_of(issue, "issue"), "</td>")
                        .el("<td>", str_of(issue, "mapping"), "</td>")
                        .raw(if blocking { "<td>yes</td></tr>" } else { "<td>no</td></tr>" });
                }
                h.raw("</tbody></table></div>");
            }
            page::pre_json(h, v.get("schema").unwrap_or(&Value::Null));
            h.raw("</div>");
        }
        Err(e) => {
            let problem = registry_api::Problem::from(e);
            h.raw("<div class=\"error\" role=\"alert\">").el("<p>", &problem.detail, "</p></div>");
        }
    }
}
