//! The tool page: definition, function schema as a table, releases, access rules.

use std::collections::BTreeMap;

use axum::extract::{Path, Query};
use axum::response::Response;
use maud::{Markup, html};
use registry_api::Problem;
use registry_core::{FunctionDefinition, ParameterDefinition, ToolDefinition, TypeDefinition};
use registry_types::Format;
use serde::Deserialize;

use crate::Console;
use crate::detail::{
    actions, call_rules, props, release_rows, release_table, releases, rules, source,
};
use crate::html::url_component;
use crate::page;
use crate::parts::{filters, pre_json, select, table, tool_name, wire, yes_no};
use crate::session::{Session, SignedIn};

/// The tool page's query: a provider format to compile the schema to.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolForm {
    /// `json-schema`, `bedrock`, `openai`, `anthropic` or `mcp`.
    pub format: String,
}

/// The live tool `id`, or the problem page.
pub(crate) async fn read(
    console: &Console,
    session: &Session,
    id: &str,
) -> Result<ToolDefinition, Response> {
    console
        .api
        .registry
        .catalog
        .get::<ToolDefinition>(id)
        .await
        .map_err(|e| page::problem(session, &Problem::from(e)))
}

/// `GET /console/tools/{id}`.
pub async fn show(
    SignedIn(console, session): SignedIn,
    Path(id): Path<String>,
    Query(form): Query<ToolForm>,
) -> Response {
    let tool = match read(&console, &session, &id).await {
        Ok(tool) => tool,
        Err(page) => return page,
    };
    let frameworks = tool.supported_agent_frameworks.iter().map(wire).collect::<Vec<_>>();
    let fields = vec![
        ("Release", "toolId", Some(tool.tool_id.clone())),
        ("Action group name", "name", Some(tool.name.clone())),
        ("Display name", "displayName", Some(tool.display_name.clone())),
        ("Description", "description", Some(tool.description.clone())),
        ("Execution type", "executionType", Some(tool.execution_type.as_str().to_owned())),
        ("Lambda", "lambdaArn", tool.lambda_arn.clone()),
        ("URL", "url", tool.url.clone()),
        ("Timeout (s)", "executionTimeout", tool.execution_timeout.map(|t| t.to_string())),
        ("Frameworks", "supportedAgentFrameworks", Some(frameworks.join(", "))),
    ];
    let name = tool_name(&tool.tool_id);
    let all = releases(&console, name).await;
    let id_url = url_component(&tool.tool_id);
    let body = html! {
        (actions(&session, &tool))
        (props(&tool, fields, tool.tags.as_ref()))
        (schema(tool.function_schema.as_deref(), tool.types.as_ref()))
        (compiled(&console, &tool.tool_id, &form.format).await)
        h2 { "Releases" }
        (release_table("releases", release_rows(&all, Some(&tool.tool_id))))
        @if all.len() > 1 {
            p {
                a #compare-link href={ "/console/tools/" (url_component(name)) "/compare" } {
                    "Compare releases"
                }
                " (what changed, and whether it breaks callers)"
            }
        }
        (rules(tool.access_rules.as_deref(), "Access rules"))
        (call_rules(tool.call_rules.as_deref()))
        p {
            a #authorize-link href={ "/console/tools/" (id_url) "/authorize" } {
                "Authorize a call"
            }
            " (fill in arguments and a caller, see the decision)"
        }
        (source(&tool))
    };
    page::ok(&format!("Tool {}", tool.tool_id), &session, body)
}

/// Each function of the schema with its parameters as a table, then the named types.
fn schema(
    functions: Option<&[FunctionDefinition]>,
    types: Option<&BTreeMap<String, TypeDefinition>>,
) -> Markup {
    html! {
        h2 { "Functions" }
        @match functions {
            None => p.muted { "No function schema." },
            Some(functions) => @for f in functions {
                h3 { code { (f.name) } }
                p { (f.description) }
                @if f.parameters.is_empty() {
                    p.muted { "No parameters." }
                } @else {
                    (table(
                        &format!("parameters-{}", f.name),
                        &["Parameter", "Type", "Required", "Description"],
                        html! {
                        @for (name, p) in &f.parameters { tr {
                            td { code { (name) } }
                            td { code { (type_text(p)) } }
                            td { (yes_no(p.is_required())) }
                            td { (p.description) }
                        } }
                    }))
                }
            },
        }
        @if let Some(types) = types {
            details { summary { "Named types" } (pre_json(types)) }
        }
    }
}

/// A parameter's type in the schema's own words: `string`, `string one of ["a","b"]`,
/// `array of number`, `object { name: string }`.
fn type_text(p: &ParameterDefinition) -> String {
    let mut text = p.ty.clone();
    if let Some(values) = &p.enum_values {
        text.push_str(&format!(" one of {}", serde_json::Value::from(values.clone())));
    }
    if let Some(value) = &p.const_value {
        text.push_str(&format!(" = {value}"));
    }
    if let Some(items) = &p.items {
        text.push_str(&format!(" of {}", type_text(items)));
    }
    if let Some(properties) = &p.properties {
        let members: Vec<String> =
            properties.iter().map(|(name, m)| format!("{name}: {}", type_text(m))).collect();
        text.push_str(&format!(" {{ {} }}", members.join(", ")));
    }
    text
}

/// The schema compiled for one provider format, with what that format cannot express.
async fn compiled(console: &Console, id: &str, format: &str) -> Markup {
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
    let chosen = if format.is_empty() { "bedrock" } else { format };
    let picker = filters(
        &format!("/console/tools/{}#schema-for", url_component(id)),
        select("format", "format", "Format", chosen, &names),
        html! { button type="submit" { "Show" } },
    );
    let Ok(format) = chosen.parse::<Format>() else {
        return html! {
            h2 { "Schema for a provider" } (picker)
            p.error role="alert" { "Pick a format from the list." }
        };
    };
    let answer = console.api.registry.catalog.tool_schema(id, format).await;
    html! {
        h2 { "Schema for a provider" } (picker)
        @match answer {
            Ok(compiled) => div #schema-for {
                @if compiled.report.is_empty() {
                    p #compat { "Lossless: " (format.as_str()) " expresses every type." }
                } @else {
                    (table(
                        "compat",
                        &["Where", "Cannot express", "Mapped as", "Blocking"],
                        html! { @for issue in &compiled.report { tr {
                            td { code { (issue.path) } }
                            td { (issue.issue) }
                            td { (issue.mapping) }
                            td { (yes_no(issue.blocking)) }
                        } } }))
                }
                (pre_json(&compiled.schema))
            },
            Err(e) => div.error role="alert" { p { (Problem::from(e).detail) } },
        }
    }
}
