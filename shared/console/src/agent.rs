//! The agent page: definition, tools with their releases and lifecycle, collaborators,
//! rollout, publication and access rules.

use std::collections::BTreeSet;

use axum::extract::{Path, State};
use axum::response::Response;
use registry_api::Problem;
use registry_core::AgentDefinition;
use serde_json::Value;

use crate::Console;
use crate::detail::{actions, props, release_rows, releases, rules, source};
use crate::html::Html;
use crate::page::{self, json_text, link, str_of};
use crate::session::SignedIn;

/// `GET /console/agents/{id}`.
pub async fn show(
    State(console): State<Console>,
    SignedIn(session): SignedIn,
    Path(id): Path<String>,
) -> Response {
    let agent = match console.api.registry.catalog.get::<AgentDefinition>(&id).await {
        Ok(agent) => agent,
        Err(e) => return page::problem(&session, &Problem::from(e)),
    };
    let v = serde_json::to_value(&agent).unwrap_or(Value::Null);
    let mut h = Html::new();
    actions(&mut h, &session, "agents", &agent.agent_id, &v);
    props(
        &mut h,
        &v,
        &[
            ("Agent id", "agentId"),
            ("Description", "description"),
            ("Foundation model", "foundationModel"),
            ("Idle session TTL (s)", "idleSessionTTLInSeconds"),
        ],
    );
    h.el("<h2>Base prompt</h2><pre class=\"prompt\">", &agent.base_prompt, "</pre>");

    h.raw("<h2>Tools</h2><div class=\"scroll\"><table id=\"agent-tools\"><thead><tr>")
        .raw("<th scope=\"col\">Release</th><th scope=\"col\">Status</th><th scope=\"col\">")
        .raw("Version</th><th scope=\"col\">Description</th></tr></thead><tbody>");
    let mut names = BTreeSet::new();
    for tool_id in &agent.tool_ids {
        let name = tool_id.split_once('@').map_or(tool_id.as_str(), |(n, _)| n);
        if !names.insert(name.to_owned()) {
            continue;
        }
        h.raw("<tr class=\"group\"><th colspan=\"4\" scope=\"rowgroup\">")
            .text(name)
            .raw(" <span class=\"muted\">named as <code>")
            .text(tool_id)
            .raw("</code></span></th></tr>");
        let found = releases(&console, name).await;
        if found.is_empty() {
            h.raw("<tr><td colspan=\"4\" class=\"muted\">No live release.</td></tr>");
        }
        release_rows(&mut h, &found, None);
    }
    h.raw("</tbody></table></div>");

    collaborators(&console, &mut h, &agent).await;
    h.raw("<h2>Rollout</h2>");
    match v.get("rolloutPolicy") {
        Some(policy) if policy.as_object().is_some_and(|o| !o.is_empty()) => {
            h.raw("<dl class=\"props\" id=\"rollout\">");
            for (k, val) in policy.as_object().into_iter().flatten() {
                h.el("<dt>", k, "</dt>").el("<dd>", &json_text(val), "</dd>");
            }
            h.raw("</dl>");
        }
        _ => {
            h.raw("<p class=\"muted\" id=\"rollout\">No rollout policy: every caller the rules ")
                .raw("allow gets this agent.</p>");
        }
    }
    h.raw("<h2>Publication</h2>");
    match v.get("publication") {
        Some(p) => page::pre_json(&mut h, p),
        None => {
            h.raw("<p class=\"muted\">Not published to Bedrock Agents.</p>");
        }
    }
    rules(&mut h, &v, "Access rules");
    source(&mut h, &v);
    page::ok(&format!("Agent {}", agent.agent_id), &session, h)
}

/// The collaborators, each with its own collaborators (the graph two levels deep).
async fn collaborators(console: &Console, h: &mut Html, agent: &AgentDefinition) {
    h.raw("<h2>Collaborators</h2>");
    let list = agent.collaborators.as_deref().unwrap_or_default();
    if list.is_empty() {
        h.raw("<p class=\"muted\">None.</p>");
        return;
    }
    h.raw("<ul class=\"graph\" id=\"collaborators\">");
    for c in list {
        h.raw("<li>");
        link(h, "agents", &c.agent_id);
        let c_json = serde_json::to_value(c).unwrap_or(Value::Null);
        h.el(" <span class=\"muted\">", str_of(&c_json, "instruction"), "</span>");
        if let Ok(sub) = console.api.registry.catalog.get::<AgentDefinition>(&c.agent_id).await {
            let subs = sub.collaborators.as_deref().unwrap_or_default();
            if !subs.is_empty() {
                h.raw("<ul>");
                for s in subs {
                    h.raw("<li>");
                    link(h, "agents", &s.agent_id);
                    h.raw("</li>");
                }
                h.raw("</ul>");
            }
        } else {
            h.raw(" <span class=\"badge badge-disabled\">not found</span>");
        }
        h.raw("</li>");
    }
    h.raw("</ul>");
}
