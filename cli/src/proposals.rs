//! The `proposals` command: list, show, approve, reject and cancel reviewed changes.

use anyhow::Result;
use comfy_table::Table;
use comfy_table::presets::UTF8_BORDERS_ONLY;
use reqwest::Method;
use serde_json::{Value, json};

use crate::admin::item_path;
use crate::args::{OutputFormat, ProposalOperation, Remote};
use crate::client::Client;
use crate::output::{self, text};

/// Prints proposals as a table (or JSON).
fn list(items: &[Value], format: OutputFormat) {
    if format == OutputFormat::Json {
        println!("{}", serde_json::to_string_pretty(items).unwrap_or_default());
        return;
    }
    let mut table = Table::new();
    table.load_preset(UTF8_BORDERS_ONLY);
    table.set_header(["ID", "STATE", "KIND", "DEFINITION", "BASE", "AUTHOR", "CREATED", "NOTE"]);
    for p in items {
        table.add_row([
            text(&p["id"]),
            text(&p["state"]),
            text(&p["kind"]),
            text(&p["definitionId"]),
            text(&p["baseVersion"]),
            text(&p["author"]),
            text(&p["createdAt"]),
            text(&p["note"]),
        ]);
    }
    println!("{table}");
}

/// Prints one proposal; the table form lists its diff one operation a line.
fn one(proposal: &Value, format: OutputFormat) {
    if format == OutputFormat::Json {
        output::one(proposal, format);
        return;
    }
    println!(
        "proposal {} ({}) for {} `{}` by {}: base version {}, {} of {} approval(s)",
        text(&proposal["id"]),
        text(&proposal["state"]),
        text(&proposal["kind"]),
        text(&proposal["definitionId"]),
        text(&proposal["author"]),
        proposal["baseVersion"].as_u64().map_or("(new)".to_owned(), |v| v.to_string()),
        proposal["approvals"].as_array().map_or(0, Vec::len),
        text(&proposal["requiredApprovals"]),
    );
    if let Some(note) = proposal["note"].as_str() {
        println!("note: {note}");
    }
    if let Some(closed) = proposal["closed"].as_object() {
        let reason = closed.get("reason").map(text).unwrap_or_default();
        println!("closed by {} at {} {reason}", text(&closed["by"]), text(&closed["at"]));
    }
    for op in proposal["diff"].as_array().into_iter().flatten() {
        let value = op.get("value").map(|v| format!(" {v}")).unwrap_or_default();
        println!("  {} {}{value}", text(&op["op"]), text(&op["path"]));
    }
    for violation in proposal["releaseCheck"].as_array().into_iter().flatten() {
        println!("  release check: {} {}", text(&violation["path"]), text(&violation["message"]));
    }
}

/// Runs one proposal operation against a running registry.
pub async fn run(op: ProposalOperation, remote: Remote) -> Result<()> {
    let client = Client::new(&remote.url, remote.token.clone())?;
    let act = |id: &str, verb: &str| format!("{}/{verb}", item_path("/proposals", id));
    match op {
        ProposalOperation::List { state, kind, id } => {
            let mut filters: Vec<(&str, String)> = vec![("limit", "100".to_owned())];
            filters.extend(state.map(|v| ("state", v)));
            filters.extend(kind.map(|v| ("kind", v)));
            filters.extend(id.map(|v| ("id", v)));
            let (items, _) = client.list("/proposals", &filters, true).await?;
            list(&items, remote.output);
        }
        ProposalOperation::Show { id } => {
            let reply = client.send(Method::GET, &item_path("/proposals", &id), None, None).await?;
            one(&reply.body, remote.output);
        }
        ProposalOperation::Approve { id } => {
            let reply = client.send(Method::POST, &act(&id, "approve"), None, None).await?;
            one(&reply.body, remote.output);
        }
        ProposalOperation::Reject { id, reason } => {
            let body = json!({"reason": reason});
            let reply = client.send(Method::POST, &act(&id, "reject"), Some(&body), None).await?;
            one(&reply.body, remote.output);
        }
        ProposalOperation::Cancel { id } => {
            let reply = client.send(Method::POST, &act(&id, "cancel"), None, None).await?;
            one(&reply.body, remote.output);
        }
    }
    Ok(())
}
