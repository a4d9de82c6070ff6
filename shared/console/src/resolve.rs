//! Resolve as a user: a form for the caller's context, the tools granted and left out
//! with the rule that decided each, and the full trace on demand.

use axum::extract::{Path, Query, State};
use axum::response::Response;
use registry_api::Problem;
use registry_api::service::ResolveFailure;
use registry_core::resolve::ResolveError;
use registry_core::{AgentDefinition, ToolDefinition};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::Console;
use crate::html::{Html, url_component};
use crate::page::{self, badge, json_text, link, str_of};
use crate::session::SignedIn;

/// The form's fields: the request context, member by member.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolveForm {
    /// `user.userId`.
    #[serde(default)]
    pub user_id: String,
    /// `user.userType`.
    #[serde(default)]
    pub user_type: String,
    /// `user.email`.
    #[serde(default)]
    pub email: String,
    /// `user.roles`, comma-separated.
    #[serde(default)]
    pub roles: String,
    /// `account.accountId`.
    #[serde(default)]
    pub account_id: String,
    /// `account.accountType`.
    #[serde(default)]
    pub account_type: String,
    /// `request.region`.
    #[serde(default)]
    pub region: String,
    /// `customData`, a JSON object.
    #[serde(default)]
    pub custom_data: String,
    /// Present once the form was sent.
    #[serde(default)]
    pub run: Option<String>,
}

impl ResolveForm {
    /// The request context, or the message for the custom-data field.
    pub(crate) fn context(&self) -> Result<Value, String> {
        let mut ctx = Map::new();
        let mut put = |outer: &str, inner: &str, v: &str| {
            if !v.trim().is_empty() {
                let entry = ctx.entry(outer.to_owned()).or_insert_with(|| json!({}));
                if let Some(o) = entry.as_object_mut() {
                    o.insert(inner.to_owned(), Value::String(v.trim().to_owned()));
                }
            }
        };
        put("user", "userId", &self.user_id);
        put("user", "userType", &self.user_type);
        put("user", "email", &self.email);
        put("account", "accountId", &self.account_id);
        put("account", "accountType", &self.account_type);
        put("request", "region", &self.region);
        let roles: Vec<Value> = self
            .roles
            .split(',')
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(|r| Value::String(r.to_owned()))
            .collect();
        if !roles.is_empty() {
            let user = ctx.entry("user".to_owned()).or_insert_with(|| json!({}));
            if let Some(o) = user.as_object_mut() {
                o.insert("roles".to_owned(), Value::Array(roles));
            }
        }
        if !self.custom_data.trim().is_empty() {
            match serde_json::from_str::<Value>(&self.custom_data) {
                Ok(Value::Object(o)) => {
                    ctx.insert("customData".to_owned(), Value::Object(o));
                }
                Ok(_) => {
                    return Err("must be a JSON object, such as {\"tier\": \"premium\"}".into());
                }
                Err(e) => return Err(format!("is not JSON: {e}")),
            }
        }
        Ok(Value::Object(ctx))
    }
}

/// `GET /console/agents/{id}/resolve`.
pub async fn show(
    State(console): State<Console>,
    SignedIn(session): SignedIn,
    Path(id): Path<String>,
    Query(form): Query<ResolveForm>,
) -> Response {
    let mut h = Html::new();
    h.raw("<p>");
    link(&mut h, "agents", &id);
    h.raw("</p>");
    let context = form.context();
    form_html(&mut h, &id, &form, context.as_ref().err());
    if form.run.is_some()
        && let Ok(ctx) = &context
    {
        h.raw("<h2>Context sent</h2>");
        page::pre_json(&mut h, ctx);
        let bytes = serde_json::to_vec(ctx).unwrap_or_default();
        match console.api.registry.resolver.resolve_json(&id, &bytes).await {
            Ok(resolution) => {
                let mut v = serde_json::to_value(&resolution).unwrap_or(Value::Null);
                if let Some(o) = v.as_object_mut() {
                    let left_out = serde_json::to_value(resolution.trace.left_out());
                    o.insert("leftOut".to_owned(), left_out.unwrap_or(Value::Null));
                }
                result(&console, &mut h, &v).await;
            }
            Err(ResolveFailure::Refused(refused)) => refusal(&mut h, &refused),
            Err(ResolveFailure::Service(e)) => {
                let problem = Problem::from(e);
                if problem.status == 404 {
                    return page::problem(&session, &problem);
                }
                h.raw("<div class=\"error\" role=\"alert\" id=\"resolve-error\">").el(
                    "<p>",
                    &problem.detail,
                    "</p>",
                );
                page::violations(&mut h, &problem.errors);
                h.raw("</div>");
            }
        }
    }
    page::ok(&format!("Resolve {id} as a user"), &session, h)
}

fn form_html(h: &mut Html, id: &str, form: &ResolveForm, custom_error: Option<&String>) {
    h.raw("<form method=\"get\" action=\"/console/agents/")
        .text(&url_component(id))
        .raw("/resolve\" id=\"resolve-form\"><input type=\"hidden\" name=\"run\" value=\"1\">")
        .raw("<div class=\"cols\"><div>");
    text_field(h, "userId", "User id (user.userId)", &form.user_id);
    h.raw("<div class=\"field\"><label for=\"userType\">User type (user.userType)</label>")
        .raw("<input type=\"text\" id=\"userType\" name=\"userType\" list=\"user-types\" value=\"")
        .text(&form.user_type)
        .raw("\"><datalist id=\"user-types\"><option value=\"internal-user\">")
        .raw("<option value=\"external-user\"><option value=\"blocked-user\"></datalist></div>");
    text_field(h, "email", "Email (user.email)", &form.email);
    text_field(h, "roles", "Roles (user.roles, comma-separated)", &form.roles);
    text_field(h, "accountId", "Account id (account.accountId)", &form.account_id);
    text_field(h, "accountType", "Account type (account.accountType)", &form.account_type);
    text_field(h, "region", "Region (request.region)", &form.region);
    h.raw("</div><div><div class=\"field\"><label for=\"customData\">Custom data ")
        .raw("(customData, a JSON object)</label><textarea id=\"customData\" name=\"customData\"");
    if custom_error.is_some() {
        h.raw(" aria-invalid=\"true\" aria-describedby=\"error-customData\"");
    }
    h.raw(">").text(&form.custom_data).raw("</textarea>");
    if let Some(e) = custom_error {
        h.el("<p class=\"field-error\" id=\"error-customData\">Custom data ", e, "</p>");
    }
    h.raw("</div></div></div><button type=\"submit\" id=\"resolve\">Resolve</button></form>");
}

/// A labelled text input named `name` holding `value`.
pub(crate) fn text_field(h: &mut Html, name: &'static str, label: &'static str, value: &str) {
    h.raw("<div class=\"field\"><label for=\"")
        .raw(name)
        .raw("\">")
        .raw(label)
        .raw("</label><input type=\"text\" id=\"")
        .raw(name)
        .raw("\" name=\"")
        .raw(name)
        .raw("\" value=\"")
        .text(value)
        .raw("\"></div>");
}

/// Granted and left-out tools, each with its deciding rule, the warnings and the trace.
async fn result(console: &Console, h: &mut Html, v: &Value) {
    let trace = v.get("trace").cloned().unwrap_or(Value::Null);
    h.raw("<h2>Agent</h2><p id=\"agent-decision\">");
    badge(h, str_of(&trace, "outcome"));
    h.raw(" version ").num(trace.get("version").and_then(Value::as_u64).unwrap_or(0)).raw(": ");
    let agent_rules = match console
        .api
        .registry
        .catalog
        .get::<AgentDefinition>(str_of(&trace, "agentId"))
        .await
    {
        Ok(agent) => serde_json::to_value(&agent.access_rules).unwrap_or(Value::Null),
        Err(_) => Value::Null,
    };
    h.text(&decision_text(trace.get("access"), Some(&agent_rules))).raw("</p>");
    let tools = trace.get("tools").and_then(Value::as_array).cloned().unwrap_or_default();
    let (granted, left): (Vec<&Value>, Vec<&Value>) =
        tools.iter().partition(|t| str_of(t, "outcome") == "INCLUDED");
    for (heading, table_id, rows) in
        [("Granted tools", "granted", &granted), ("Left out", "left-out", &left)]
    {
        h.raw("<h2>").raw(heading).raw(" (").num(rows.len()).raw(")</h2>");
        if rows.is_empty() {
            h.raw("<p class=\"muted\" id=\"").raw(table_id).raw("\">None.</p>");
            continue;
        }
        h.raw("<div class=\"scroll\"><table id=\"")
            .raw(table_id)
            .raw("\"><thead><tr><th scope=\"col\">Tool</th><th scope=\"col\">Outcome</th>")
            .raw("<th scope=\"col\">Deciding rule</th></tr></thead><tbody>");
        for t in rows.iter() {
            let tool_id = str_of(t, "toolId");
            let rules = match console.api.registry.catalog.get::<ToolDefinition>(tool_id).await {
                Ok(tool) => serde_json::to_value(&tool.access_rules).unwrap_or(Value::Null),
                Err(_) => Value::Null,
            };
            h.raw("<tr><td>");
            link(h, "tools", tool_id);
            h.raw("</td><td>");
            badge(h, str_of(t, "outcome"));
            h.el(
                "</td><td class=\"rule\">",
                &decision_text(t.get("access"), Some(&rules)),
                "</td></tr>",
            );
        }
        h.raw("</tbody></table></div>");
    }
    left_out_reasons(h, v);
    if let Some(warnings) = v.get("warnings").and_then(Value::as_array).filter(|w| !w.is_empty()) {
        h.raw("<h2>Warnings</h2><ul id=\"warnings\">");
        for w in warnings {
            h.el("<li>", &json_text(w.get("message").unwrap_or(w)), "</li>");
        }
        h.raw("</ul>");
    }
    trace_details(h, &trace);
}

/// Why access was granted or refused, naming the deciding rule.
fn decision_text(access: Option<&Value>, rules: Option<&Value>) -> String {
    let Some(a) = access else {
        return "no access rules evaluated".to_owned();
    };
    let effect = str_of(a, "effect");
    match str_of(a, "reason") {
        "NO_RULES" => format!("{effect}: no access rules"),
        "NO_MATCH" => format!("{effect}: no rule matched{}", would_be_text(a)),
        reason => {
            let index = a.get("ruleIndex").and_then(Value::as_u64);
            let rule = index.and_then(|i| rules.and_then(|r| r.get(usize::try_from(i).ok()?)));
            let mut text = match index {
                Some(i) => format!("{effect} by rule #{i}"),
                None => format!("{effect} ({reason})"),
            };
            if let Some(rule) = rule {
                let description = str_of(rule, "description");
                if !description.is_empty() {
                    text.push_str(&format!(" \u{201c}{description}\u{201d}"));
                }
                let condition = str_of(rule, "condition");
                if !condition.is_empty() {
                    text.push_str(&format!(": {condition}"));
                }
            }
            let id = str_of(a, "ruleId");
            if !id.is_empty() {
                text.push_str(&format!(" (rule id {id})"));
            }
            text.push_str(&would_be_text(a));
            text
        }
    }
}

/// What the log-only rules would have made of a decision, when that differs ("").
fn would_be_text(a: &Value) -> String {
    let Some(w) = a.get("wouldBe") else {
        return String::new();
    };
    let mut text = format!("; log-only rules would make it {}", str_of(w, "effect"));
    let by = str_of(w, "ruleId");
    if !by.is_empty() {
        text.push_str(&format!(" by {by}"));
    }
    text
}

/// The compact reasons the resolution answers with: each left-out tool or
/// collaborator, its reason code and the denying rule's id.
fn left_out_reasons(h: &mut Html, v: &Value) {
    let Some(items) = v.get("leftOut").and_then(Value::as_array).filter(|l| !l.is_empty()) else {
        return;
    };
    h.raw("<h2>Left-out reason codes</h2><ul id=\"left-out-reasons\">");
    for item in items {
        h.el("<li>", str_of(item, "kind"), " ").el("<code>", str_of(item, "id"), "</code>: ").el(
            "<code>",
            str_of(item, "reason"),
            "</code>",
        );
        let rule = str_of(item, "ruleId");
        if !rule.is_empty() {
            h.el(" by rule <code>", rule, "</code>");
        }
        h.raw("</li>");
    }
    h.raw("</ul>");
}

fn refusal(h: &mut Html, refused: &ResolveError) {
    h.raw(
        "<div class=\"error\" role=\"alert\" id=\"refused\"><p>The agent is refused to this user: ",
    )
    .text(&refused.to_string())
    .raw("</p></div>");
    let trace = match refused {
        ResolveError::Denied { trace, .. } | ResolveError::NotAvailable { trace } => {
            serde_json::to_value(trace).unwrap_or(Value::Null)
        }
        _ => Value::Null,
    };
    trace_details(h, &trace);
}

fn trace_details(h: &mut Html, trace: &Value) {
    h.raw("<details id=\"trace\"><summary>Full decision trace</summary>");
    page::pre_json(h, trace);
    h.raw("</details>");
}
