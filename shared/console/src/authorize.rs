//! Authorize a call: pick a function of the tool, fill its arguments in inputs typed by
//! the schema and the caller's context, and see the decision with every rule's result
//! (what `POST /tools/{id}/authorize?explain=true` answers).

use std::collections::HashMap;

use axum::extract::{Path, Query};
use axum::response::Response;
use maud::{Markup, html};
use registry_access::{RuleOutcome, RuleResult};
use registry_api::Problem;
use registry_api::service::{Authorization, AuthorizeRequest, CallInput};
use registry_core::{RequestContext, ToolDefinition};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::context::ContextForm;
use crate::html::url_component;
use crate::page;
use crate::parts::{
    Control, badge, csrf_field, field, filters, link, pre_json, select, table, text_field, wire,
    yes_no,
};
use crate::posted::Posted;
use crate::session::{Session, SignedIn};

/// The function picked (`?function=`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Pick {
    /// A function name of the tool's schema (the first when empty).
    pub function: String,
}

/// The input an argument gets, from its parameter's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    /// `number`: a decimal.
    Number,
    /// `integer`: a whole number.
    Integer,
    /// `boolean`: a checkbox.
    Boolean,
    /// `string`: text.
    Text,
    /// Anything else (arrays, objects, named types): JSON in a textarea.
    Json,
}

/// One parameter of the picked function.
#[derive(Debug, Clone)]
struct Param {
    name: String,
    input: Input,
    required: bool,
    description: String,
}

/// Messages by argument name, and the rest of the violations.
type FieldErrors = HashMap<String, Vec<String>>;

/// `GET /console/tools/{id}/authorize`: the form.
pub async fn form(
    SignedIn(console, session): SignedIn,
    Path(id): Path<String>,
    Query(pick): Query<Pick>,
) -> Response {
    let tool = match crate::tool::read(&console, &session, &id).await {
        Ok(tool) => tool,
        Err(page) => return page,
    };
    let sent = (&HashMap::new(), &ContextForm::default());
    let body = render(&session, &tool, &pick.function, sent, &FieldErrors::new());
    page::ok(&format!("Authorize a call of {id}"), &session, body)
}

/// `POST /console/tools/{id}/authorize`: decides the call and shows why.
pub async fn submit(Path(id): Path<String>, form: Posted) -> Response {
    let console = &form.console;
    let session = &form.session;
    let tool = match crate::tool::read(console, session, &id).await {
        Ok(tool) => tool,
        Err(page) => return page,
    };
    let function = form.field("function").to_owned();
    let params = params_of(&tool, &function);
    let (arguments, mut errors) = arguments(&params, &form.fields);
    let caller: ContextForm =
        serde_json::to_value(&form.fields).and_then(serde_json::from_value).unwrap_or_default();
    let context = match caller.context() {
        Ok(ctx) => match registry_api::service::from_json::<RequestContext>(ctx) {
            Ok(context) => Some(context),
            Err(violations) => {
                let messages = violations.iter().map(|v| format!("{} {}", v.path, v.message));
                errors.entry(CONTEXT.to_owned()).or_default().extend(messages);
                None
            }
        },
        Err(e) => {
            errors.entry(CONTEXT.to_owned()).or_default().push(format!("Custom data {e}"));
            None
        }
    };
    let mut result = html! {};
    if let (Some(context), true) = (context, errors.is_empty()) {
        let optional =
            |name: &str| Some(form.field(name).trim().to_owned()).filter(|s| !s.is_empty());
        let request = AuthorizeRequest {
            context: Some(context),
            call: CallInput { function: function.clone(), http_method: None, arguments },
            agent_id: optional("agentId"),
            session_id: optional("sessionId"),
            from_token: false,
        };
        result = match console.api.registry.calls.authorize(&id, &request, true).await {
            Ok(answer) => decision(&tool, &answer),
            Err(e) => {
                let problem = Problem::from(e);
                let mut other = Vec::new();
                for e in &problem.errors {
                    match e.path.strip_prefix("/call/arguments/") {
                        Some(name) if params.iter().any(|p| p.name == name) => {
                            errors.entry(name.to_owned()).or_default().push(e.message.clone());
                        }
                        _ => other.push(e.clone()),
                    }
                }
                let detail = format!(
                    "{}: nothing was decided. Correct the fields marked above.",
                    problem.detail
                );
                crate::parts::error_box(Some("authorize-error"), &detail, &other)
            }
        };
    }
    let body =
        html! { (render(session, &tool, &function, (&form.fields, &caller), &errors)) (result) };
    page::ok(&format!("Authorize a call of {id}"), session, body)
}

/// The key of the caller's context among the field errors.
const CONTEXT: &str = "customData";

/// The parameters of `function` (the first function when empty) of `tool`.
fn params_of(tool: &ToolDefinition, function: &str) -> Vec<Param> {
    let functions = tool.function_schema.iter().flatten();
    let Some(f) = functions.into_iter().find(|f| function.is_empty() || f.name == function) else {
        return Vec::new();
    };
    f.parameters
        .iter()
        .map(|(name, p)| Param {
            name: name.clone(),
            input: match p.ty.as_str() {
                "number" => Input::Number,
                "integer" => Input::Integer,
                "boolean" => Input::Boolean,
                "string" => Input::Text,
                _ => Input::Json,
            },
            required: p.is_required(),
            description: p.description.clone(),
        })
        .collect()
}

/// The arguments as JSON values typed by their parameters. A number that does not
/// parse is sent as text, so the server reports it at its pointer; JSON that does not
/// parse is reported here.
fn arguments(
    params: &[Param],
    fields: &HashMap<String, String>,
) -> (Map<String, Value>, FieldErrors) {
    let mut arguments = Map::new();
    let mut errors = FieldErrors::new();
    for p in params {
        let raw = fields.get(&format!("arg.{}", p.name)).map_or("", String::as_str);
        let text = raw.trim();
        let value = match p.input {
            Input::Boolean => Some(Value::Bool(!text.is_empty())),
            _ if text.is_empty() => None,
            Input::Number | Input::Integer => Some(match serde_json::from_str::<Value>(text) {
                Ok(n @ Value::Number(_)) => n,
                _ => Value::String(text.to_owned()),
            }),
            Input::Text => Some(Value::String(raw.to_owned())),
            Input::Json => match serde_json::from_str::<Value>(text) {
                Ok(v) => Some(v),
                Err(e) => {
                    errors.entry(p.name.clone()).or_default().push(format!("is not JSON: {e}"));
                    None
                }
            },
        };
        if let Some(value) = value {
            arguments.insert(p.name.clone(), value);
        }
    }
    (arguments, errors)
}

impl Input {
    /// The type named in the label.
    fn label(self) -> &'static str {
        match self {
            Input::Number => "number",
            Input::Integer => "integer",
            Input::Boolean => "boolean",
            Input::Text => "string",
            Input::Json => "JSON",
        }
    }
}

/// The function picker, then the call form with one typed input per parameter and the
/// caller, holding the `fields` sent (the caller's read as a context form).
fn render(
    session: &Session,
    tool: &ToolDefinition,
    function: &str,
    (fields, caller): (&HashMap<String, String>, &ContextForm),
    errors: &FieldErrors,
) -> Markup {
    let action = format!("/console/tools/{}/authorize", url_component(&tool.tool_id));
    let names: Vec<&str> = tool.function_schema.iter().flatten().map(|f| f.name.as_str()).collect();
    let Some(first) = names.first() else {
        return html! {
            p { (link("tools", &tool.tool_id)) }
            p.muted { "This tool has no function schema to call." }
        };
    };
    let chosen = if function.is_empty() { first } else { function };
    let value = |name: &str| fields.get(name).map_or("", String::as_str);
    let params = params_of(tool, chosen);
    let agent = "Agent id (optional: the agent making the call)";
    let session_id = "Session id (optional, needs the agent id: counts against its budgets)";
    let extra = html! {
        (text_field("agentId", agent, value("agentId")))
        (text_field("sessionId", session_id, value("sessionId")))
    };
    let picker = filters(
        &action,
        select("function", "function", "Function", chosen, &names),
        html! { button type="submit" { "Pick" } },
    );
    let context_error = errors.get(CONTEXT).map(|m| m.join("; "));
    html! {
        p { (link("tools", &tool.tool_id)) }
        (picker)
        form method="post" #authorize-form novalidate action=(action) {
            (csrf_field(session))
            input type="hidden" name="function" value=(chosen);
            h2 { "Arguments of " code { (chosen) } }
            @if params.is_empty() { p.muted { "No parameters." } }
            @for p in &params {
                (argument(p, value(&format!("arg.{}", p.name)), errors.get(&p.name)))
            }
            h2 { "Caller" }
            (caller.fields(extra, context_error.as_deref()))
            button type="submit" #authorize { "Authorize" }
        }
    }
}

/// One argument's labelled input, typed by its parameter, with its errors.
fn argument(p: &Param, value: &str, messages: Option<&Vec<String>>) -> Markup {
    let dom_id = format!("arg-{}", p.name);
    let error_id = format!("error-{dom_id}");
    let label = html! {
        code { (p.name) } " (" (p.input.label()) @if p.required { ", required" } ")"
        @if !p.description.is_empty() { " " span.muted { (p.description) } }
    };
    let control = match p.input {
        Input::Json => Control::TextArea,
        Input::Boolean => Control::Checkbox,
        Input::Number => Control::Text(Some("decimal")),
        Input::Integer => Control::Text(Some("numeric")),
        Input::Text => Control::Text(None),
    };
    let error =
        messages.map(|m| (error_id.as_str(), html! { code { (p.name) } " " (m.join("; ")) }));
    field((&dom_id, &format!("arg.{}", p.name)), label, control, value, error)
}

/// The description of the rule `rule_id` of `tool` (call rules first), or "".
fn describe<'a>(tool: &'a ToolDefinition, rule_id: &str) -> &'a str {
    let call = tool.call_rules.iter().flatten();
    let access = tool.access_rules.iter().flatten();
    call.chain(access)
        .find(|r| r.id.as_deref() == Some(rule_id))
        .and_then(|r| r.description.as_deref())
        .unwrap_or_default()
}

/// A rule id in `<code>`, with its description quoted when it has one.
fn rule_named(tool: &ToolDefinition, rule_id: &str) -> Markup {
    let description = describe(tool, rule_id);
    html! {
        code { (rule_id) }
        @if !description.is_empty() { " \u{201c}" (description) "\u{201d}" }
    }
}

/// The decision: effect, outcome, stage, deciding rule, log-only outcomes, the limit,
/// and each rule's result.
fn decision(tool: &ToolDefinition, a: &Authorization) -> Markup {
    let trace = a.trace.as_ref();
    let results = [
        ("Access rules", "access-results", trace.map(|t| t.access_rules.as_slice())),
        ("Call rules", "call-results", trace.map(|t| t.call_rules.as_slice())),
    ];
    html! {
        h2 { "Decision" }
        dl.props #decision {
            dt { "Effect" } dd #effect { (badge(&wire(&a.effect))) }
            dt { "Outcome" } dd #outcome { (badge(a.outcome.as_str())) }
            dt { "Stage" } dd #stage { (wire(&a.stage)) }
            dt { "Reason" } dd #reason { (a.reason) }
            @if let Some(rule_id) = &a.rule_id {
                dt { "Deciding rule" } dd #deciding-rule { (rule_named(tool, rule_id)) }
            }
            @if let Some(w) = &a.would_be {
                dt { "With log-only rules enforced" }
                dd #would-be {
                    (badge(&wire(&w.effect)))
                    @if let Some(by) = &w.rule_id { " by " (rule_named(tool, by)) }
                }
            }
            @if let Some(limit) = &a.limit {
                dt { "Limit" }
                dd #limit { code { (limit) } " " (a.message.as_deref().unwrap_or_default()) }
            }
            dt { "Version" } dd { (a.version) }
            dt { "Decision id" } dd { code { (a.decision_id) } }
        }
        @if !a.log_only.is_empty() {
            h2 { "Log-only rules reached" }
            ul #log-only { @for o in &a.log_only { li {
                code { (o.rule_id.as_deref().unwrap_or_default()) } " " (wire(&o.effect))
                @if o.would_decide { ": would decide" } @else { ": would not decide" }
            } } }
        }
        @for (heading, table_id, rows) in results {
            @if let Some(rows) = rows.filter(|r| !r.is_empty()) {
                h2 { (heading) }
                (rule_results(table_id, rows))
            }
        }
        details #trace { summary { "The full answer" } (pre_json(a)) }
    }
}

/// Each rule's result as a table.
fn rule_results(table_id: &str, rows: &[RuleOutcome]) -> Markup {
    html! {
        (table(
            table_id,
            &["#", "Id", "Effect", "Mode", "Result", "Decided"],
            html! { @for r in rows { tr {
                td { (r.rule_index) }
                td { code { (r.rule_id.as_deref().unwrap_or_default()) } }
                td { (wire(&r.effect)) }
                td { (wire(&r.mode)) }
                td {
                    @match &r.result {
                        RuleResult::Matched => "matched",
                        RuleResult::NotMatched => "not matched",
                        RuleResult::Error(message) => { "error: " (message) }
                    }
                }
                td { (yes_no(r.decisive)) }
            } } }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_typed_by_their_parameters() {
        let tool: ToolDefinition = serde_json::from_value(json!({
            "toolId": "t@1.0.0", "executionType": "lambda",
            "functionSchema": [{"name": "f", "parameters": {
                "n": {"type": "number", "required": true},
                "i": {"type": "integer"},
                "b": {"type": "boolean"},
                "s": {"type": "string", "required": false},
                "list": {"type": "array", "items": {"type": "string"}},
                "bad": {"type": "object"}
            }}]
        }))
        .unwrap();
        let params = params_of(&tool, "");
        assert_eq!(params.len(), 6);
        let required: Vec<(&str, bool)> =
            params.iter().map(|p| (p.name.as_str(), p.required)).collect();
        assert!(required.contains(&("i", true)), "required unless said otherwise: {required:?}");
        assert!(required.contains(&("s", false)), "{required:?}");
        let fields: HashMap<String, String> = [
            ("arg.n", "5e10"),
            ("arg.i", "lots"),
            ("arg.s", " km "),
            ("arg.list", "[\"a\"]"),
            ("arg.bad", "{"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let (args, errors) = arguments(&params, &fields);
        assert_eq!(args["n"], json!(5e10));
        assert_eq!(args["i"], json!("lots"), "left for the server to report at its pointer");
        assert_eq!(args["b"], json!(false), "an unchecked box is false");
        assert_eq!(args["s"], json!(" km "));
        assert_eq!(args["list"], json!(["a"]));
        assert!(!args.contains_key("bad"));
        assert!(errors["bad"][0].starts_with("is not JSON"), "{errors:?}");
        assert!(params_of(&tool, "missing").is_empty());
    }
}
