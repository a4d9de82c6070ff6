//! Authorize a call: pick a function of the tool, fill its arguments in inputs typed by
//! the schema and the caller's context, and see the decision with every rule's result
//! (what `POST /tools/{id}/authorize?explain=true` answers).

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::response::Response;
use registry_api::Problem;
use registry_api::service::{AuthorizeRequest, CallInput};
use registry_core::RequestContext;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::Console;
use crate::html::{Html, url_component};
use crate::page::{self, badge, csrf_field, json_text, link, str_of};
use crate::posted::Posted;
use crate::resolve::{ResolveForm, text_field};
use crate::session::{Session, SignedIn};

/// The function picked (`?function=`).
#[derive(Debug, Default, Deserialize)]
pub struct Pick {
    /// A function name of the tool's schema (the first when empty).
    #[serde(default)]
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
    State(console): State<Console>,
    SignedIn(session): SignedIn,
    Path(id): Path<String>,
    Query(pick): Query<Pick>,
) -> Response {
    let (_, v) = match crate::tool::read(&console, &session, &id).await {
        Ok(read) => read,
        Err(page) => return page,
    };
    let mut h = Html::new();
    render(&mut h, &session, &id, &v, &pick.function, &HashMap::new(), &HashMap::new());
    page::ok(&format!("Authorize a call of {id}"), &session, h)
}

/// `POST /console/tools/{id}/authorize`: decides the call and shows why.
pub async fn submit(
    State(console): State<Console>,
    Path(id): Path<String>,
    form: Posted,
) -> Response {
    let session = &form.session;
    let (_, v) = match crate::tool::read(&console, session, &id).await {
        Ok(read) => read,
        Err(page) => return page,
    };
    let function = form.field("function").to_owned();
    let params = params_of(&v, &function);
    let (arguments, mut errors) = arguments(&params, &form.fields);
    let resolve: ResolveForm =
        serde_json::to_value(&form.fields).and_then(serde_json::from_value).unwrap_or_default();
    let context = match resolve.context() {
        Ok(ctx) => registry_api::service::from_json::<RequestContext>(ctx).map_err(|errors| {
            errors
                .iter()
                .map(|v| format!("{} {}", v.path, v.message))
                .collect::<Vec<_>>()
                .join("; ")
        }),
        Err(e) => Err(format!("Custom data {e}")),
    };
    let context = match context {
        Ok(c) => Some(c),
        Err(e) => {
            errors.entry("context".to_owned()).or_default().push(e);
            None
        }
    };
    let mut h = Html::new();
    let mut result = Html::new();
    if let (Some(context), true) = (context, errors.is_empty()) {
        let optional =
            |name: &str| Some(form.field(name).trim().to_owned()).filter(|s| !s.is_empty());
        let request = AuthorizeRequest {
            context,
            call: CallInput { function: function.clone(), http_method: None, arguments },
            agent_id: optional("agentId"),
            session_id: optional("sessionId"),
        };
        match console.api.registry.calls.authorize(&id, &request, true).await {
            Ok(answer) => {
                let answer = serde_json::to_value(&answer).unwrap_or(Value::Null);
                decision(&mut result, &v, &answer);
            }
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
                result.raw("<div class=\"error\" role=\"alert\" id=\"authorize-error\">").el(
                    "<p>",
                    &problem.detail,
                    ": nothing was decided. Correct the fields marked above.</p>",
                );
                page::violations(&mut result, &other);
                result.raw("</div>");
            }
        }
    }
    render(&mut h, session, &id, &v, &function, &form.fields, &errors);
    h.append(result);
    page::ok(&format!("Authorize a call of {id}"), session, h)
}

/// The parameters of `function` (the first function when empty) of tool `v`.
fn params_of(v: &Value, function: &str) -> Vec<Param> {
    let functions = v.get("functionSchema").and_then(Value::as_array);
    let f = functions
        .and_then(|fs| fs.iter().find(|f| function.is_empty() || str_of(f, "name") == function));
    let Some(params) = f.and_then(|f| f.get("parameters")).and_then(Value::as_object) else {
        return Vec::new();
    };
    params
        .iter()
        .map(|(name, p)| Param {
            name: name.clone(),
            input: match str_of(p, "type") {
                "number" => Input::Number,
                "integer" => Input::Integer,
                "boolean" => Input::Boolean,
                "string" => Input::Text,
                _ => Input::Json,
            },
            required: p.get("required").and_then(Value::as_bool).unwrap_or(false),
            description: str_of(p, "description").to_owned(),
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

/// The function picker, then the call form with one typed input per parameter.
fn render(
    h: &mut Html,
    session: &Session,
    id: &str,
    v: &Value,
    function: &str,
    fields: &HashMap<String, String>,
    errors: &FieldErrors,
) {
    let id_url = url_component(id);
    h.raw("<p>");
    link(h, "tools", id);
    h.raw("</p>");
    let names: Vec<&str> = v
        .get("functionSchema")
        .and_then(Value::as_array)
        .map(|fs| fs.iter().map(|f| str_of(f, "name")).collect())
        .unwrap_or_default();
    if names.is_empty() {
        h.raw("<p class=\"muted\">This tool has no function schema to call.</p>");
        return;
    }
    let chosen = if function.is_empty() { names[0] } else { function };
    h.raw("<form class=\"filters\" method=\"get\" action=\"/console/tools/")
        .text(&id_url)
        .raw("/authorize\"><div><label for=\"function\">Function</label>")
        .raw("<select id=\"function\" name=\"function\">");
    crate::lists::options(h, chosen, &names);
    h.raw("</select></div><div><button type=\"submit\">Pick</button></div></form>");
    let value = |name: &str| fields.get(name).map_or("", String::as_str);
    h.raw("<form method=\"post\" id=\"authorize-form\" novalidate action=\"/console/tools/")
        .text(&id_url)
        .raw("/authorize\">");
    csrf_field(h, session);
    h.raw("<input type=\"hidden\" name=\"function\" value=\"").text(chosen).raw("\">");
    h.el("<h2>Arguments of <code>", chosen, "</code></h2>");
    let params = params_of(v, chosen);
    if params.is_empty() {
        h.raw("<p class=\"muted\">No parameters.</p>");
    }
    for p in &params {
        let name = format!("arg.{}", p.name);
        let dom_id = format!("arg-{}", p.name);
        let field_errors = errors.get(&p.name);
        h.raw("<div class=\"field\"><label for=\"").text(&dom_id).raw("\"><code>").text(&p.name);
        h.raw("</code> (").raw(match p.input {
            Input::Number => "number",
            Input::Integer => "integer",
            Input::Boolean => "boolean",
            Input::Text => "string",
            Input::Json => "JSON",
        });
        h.raw(if p.required { ", required)" } else { ")" });
        if !p.description.is_empty() {
            h.raw(" <span class=\"muted\">").text(&p.description).raw("</span>");
        }
        h.raw("</label>");
        let invalid = |h: &mut Html| {
            if field_errors.is_some() {
                h.raw(" aria-invalid=\"true\" aria-describedby=\"error-").text(&dom_id).raw("\"");
            }
        };
        match p.input {
            Input::Json => {
                h.raw("<textarea id=\"").text(&dom_id).raw("\" name=\"").text(&name).raw("\"");
                invalid(h);
                h.raw(">").text(value(&name)).raw("</textarea>");
            }
            Input::Boolean => {
                h.raw("<input type=\"checkbox\" id=\"")
                    .text(&dom_id)
                    .raw("\" name=\"")
                    .text(&name)
                    .raw("\"");
                if !value(&name).is_empty() {
                    h.raw(" checked");
                }
                invalid(h);
                h.raw(">");
            }
            input => {
                h.raw("<input id=\"").text(&dom_id).raw("\" name=\"").text(&name).raw("\"");
                h.raw(match input {
                    Input::Number => " type=\"text\" inputmode=\"decimal\"",
                    Input::Integer => " type=\"text\" inputmode=\"numeric\"",
                    _ => " type=\"text\"",
                });
                invalid(h);
                h.raw(" value=\"").text(value(&name)).raw("\">");
            }
        }
        if let Some(messages) = field_errors {
            h.raw("<p class=\"field-error\" id=\"error-")
                .text(&dom_id)
                .raw("\"><code>")
                .text(&p.name)
                .raw("</code> ")
                .text(&messages.join("; "))
                .raw("</p>");
        }
        h.raw("</div>");
    }
    h.raw("<h2>Caller</h2><div class=\"cols\"><div>");
    for (name, label) in [
        ("userId", "User id (user.userId)"),
        ("userType", "User type (user.userType)"),
        ("roles", "Roles (user.roles, comma-separated)"),
        ("email", "Email (user.email)"),
    ] {
        text_field(h, name, label, value(name));
    }
    h.raw("</div><div>");
    for (name, label) in [
        ("accountId", "Account id (account.accountId)"),
        ("accountType", "Account type (account.accountType)"),
        ("region", "Region (request.region)"),
        ("agentId", "Agent id (optional: the agent making the call)"),
        ("sessionId", "Session id (optional, needs the agent id: counts against its budgets)"),
    ] {
        text_field(h, name, label, value(name));
    }
    h.raw("<div class=\"field\"><label for=\"customData\">Custom data (customData, a JSON ")
        .raw("object)</label><textarea id=\"customData\" name=\"customData\">")
        .text(value("customData"))
        .raw("</textarea></div></div></div>");
    if let Some(messages) = errors.get("context") {
        h.raw("<p class=\"field-error\" id=\"error-context\">")
            .text(&messages.join("; "))
            .raw("</p>");
    }
    h.raw("<button type=\"submit\" id=\"authorize\">Authorize</button></form>");
}

/// The decision: effect, outcome, stage, deciding rule, log-only outcomes, the limit,
/// and each rule's result.
fn decision(h: &mut Html, tool: &Value, a: &Value) {
    let describe = |rule_id: &str| -> String {
        let rules = tool.get("callRules").and_then(Value::as_array).into_iter().flatten();
        let access = tool.get("accessRules").and_then(Value::as_array).into_iter().flatten();
        rules
            .chain(access)
            .find(|r| str_of(r, "id") == rule_id)
            .map(|r| str_of(r, "description").to_owned())
            .unwrap_or_default()
    };
    h.raw("<h2>Decision</h2><dl class=\"props\" id=\"decision\"><dt>Effect</dt><dd id=\"effect\">");
    badge(h, str_of(a, "effect"));
    h.raw("</dd><dt>Outcome</dt><dd id=\"outcome\">");
    badge(h, str_of(a, "outcome"));
    h.el("</dd><dt>Stage</dt><dd id=\"stage\">", str_of(a, "stage"), "</dd>").el(
        "<dt>Reason</dt><dd id=\"reason\">",
        str_of(a, "reason"),
        "</dd>",
    );
    let rule_id = str_of(a, "ruleId");
    if !rule_id.is_empty() {
        h.el("<dt>Deciding rule</dt><dd id=\"deciding-rule\"><code>", rule_id, "</code>");
        let d = describe(rule_id);
        if !d.is_empty() {
            h.el(" \u{201c}", &d, "\u{201d}");
        }
        h.raw("</dd>");
    }
    if let Some(w) = a.get("wouldBe") {
        h.raw("<dt>With log-only rules enforced</dt><dd id=\"would-be\">");
        badge(h, str_of(w, "effect"));
        let by = str_of(w, "ruleId");
        if !by.is_empty() {
            h.el(" by <code>", by, "</code>");
            let d = describe(by);
            if !d.is_empty() {
                h.el(" \u{201c}", &d, "\u{201d}");
            }
        }
        h.raw("</dd>");
    }
    if let Some(limit) = a.get("limit").and_then(Value::as_str) {
        h.el("<dt>Limit</dt><dd id=\"limit\"><code>", limit, "</code> ")
            .text(str_of(a, "message"))
            .raw("</dd>");
    }
    h.el("<dt>Version</dt><dd>", &json_text(a.get("version").unwrap_or(&Value::Null)), "</dd>").el(
        "<dt>Decision id</dt><dd><code>",
        str_of(a, "decisionId"),
        "</code></dd></dl>",
    );
    if let Some(log_only) = a.get("logOnly").and_then(Value::as_array) {
        h.raw("<h2>Log-only rules reached</h2><ul id=\"log-only\">");
        for o in log_only {
            let would = o.get("wouldDecide").and_then(Value::as_bool).unwrap_or(false);
            h.el("<li><code>", str_of(o, "ruleId"), "</code> ")
                .text(str_of(o, "effect"))
                .raw(if would { ": would decide" } else { ": would not decide" })
                .raw("</li>");
        }
        h.raw("</ul>");
    }
    let trace = a.get("trace").cloned().unwrap_or(Value::Null);
    for (heading, key, table_id) in [
        ("Access rules", "accessRules", "access-results"),
        ("Call rules", "callRules", "call-results"),
    ] {
        let Some(rows) = trace.get(key).and_then(Value::as_array).filter(|r| !r.is_empty()) else {
            continue;
        };
        h.raw("<h2>").raw(heading).raw("</h2><div class=\"scroll\"><table id=\"").raw(table_id);
        h.raw("\"><thead><tr><th scope=\"col\">#</th><th scope=\"col\">Id</th><th scope=\"col\">")
            .raw("Effect</th><th scope=\"col\">Mode</th><th scope=\"col\">Result</th>")
            .raw("<th scope=\"col\">Decided</th></tr></thead><tbody>");
        for r in rows {
            let mut rest = r.clone();
            if let Some(o) = rest.as_object_mut() {
                for k in ["ruleIndex", "ruleId", "order", "effect", "mode", "decisive"] {
                    o.remove(k);
                }
            }
            let decisive = r.get("decisive").and_then(Value::as_bool).unwrap_or(false);
            h.el("<tr><td>", &json_text(r.get("ruleIndex").unwrap_or(&Value::Null)), "</td>")
                .el("<td><code>", str_of(r, "ruleId"), "</code></td>")
                .el("<td>", str_of(r, "effect"), "</td>")
                .el(
                    "<td>",
                    if str_of(r, "mode").is_empty() { "enforce" } else { str_of(r, "mode") },
                    "</td>",
                )
                .el("<td>", &json_text(&rest), "</td>")
                .raw(if decisive { "<td>yes</td></tr>" } else { "<td>no</td></tr>" });
        }
        h.raw("</tbody></table></div>");
    }
    h.raw("<details id=\"trace\"><summary>The full answer</summary>");
    page::pre_json(h, a);
    h.raw("</details>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_typed_by_their_parameters() {
        let tool = json!({"functionSchema": [{"name": "f", "parameters": {
            "n": {"type": "number", "required": true},
            "i": {"type": "integer"},
            "b": {"type": "boolean"},
            "s": {"type": "string"},
            "list": {"type": "array", "items": {"type": "string"}},
            "bad": {"type": "object"}
        }}]});
        let params = params_of(&tool, "");
        assert_eq!(params.len(), 6);
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
