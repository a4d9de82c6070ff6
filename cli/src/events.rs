//! The `events` command: pages through `GET /events`, optionally following new ones.

use anyhow::Result;
use reqwest::Method;
use serde_json::Value;

use crate::admin::encode_query;
use crate::args::{EventArgs, OutputFormat, Remote};
use crate::client::Client;
use crate::output::text;

/// One line per event: sequence, time, actor, action, subject, versions, changed fields.
fn line(event: &Value) -> String {
    let version = |v: &Value| v.as_u64().map_or("-".to_owned(), |n| n.to_string());
    let changed: Vec<String> = event["changed"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str().map(str::to_owned))
        .collect();
    let proposal = event["proposal"].as_str().map(|p| format!(" proposal={p}")).unwrap_or_default();
    format!(
        "{:>8} {} {:<20} {:<18} {}/{} v{}->v{}{proposal} {}",
        version(&event["seq"]),
        text(&event["time"]),
        text(&event["actor"]),
        text(&event["action"]),
        text(&event["kind"]),
        text(&event["id"]),
        version(&event["versionBefore"]),
        version(&event["versionAfter"]),
        changed.join(",")
    )
}

/// Prints every event after `--after` (then, with `--follow`, new ones as they come).
pub async fn run(args: EventArgs, remote: Remote) -> Result<()> {
    let client = Client::new(&remote.url, remote.token.clone())?;
    let mut filters: Vec<(&str, String)> = vec![("limit", "1000".to_owned())];
    filters.extend(args.kind.clone().map(|v| ("kind", v)));
    filters.extend(args.id.clone().map(|v| ("id", v)));
    filters.extend(args.actor.clone().map(|v| ("actor", v)));
    filters.extend(args.action.clone().map(|v| ("action", v)));
    let mut cursor = args.after.clone();
    loop {
        let mut query = filters.clone();
        query.extend(cursor.clone().map(|c| ("after", c)));
        let reply = client
            .send(Method::GET, &format!("/events?{}", encode_query(&query)), None, None)
            .await?;
        let items = reply.body["items"].as_array().cloned().unwrap_or_default();
        for event in &items {
            match remote.output {
                OutputFormat::Json => {
                    println!("{}", serde_json::to_string(event).unwrap_or_default())
                }
                OutputFormat::Table => println!("{}", line(event)),
            }
        }
        let next = reply.body["cursor"].as_str().map(str::to_owned);
        let moved = next != cursor;
        cursor = next;
        if !items.is_empty() && moved {
            continue;
        }
        if !args.follow {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_secs(args.interval)).await;
    }
    if let Some(cursor) = cursor {
        eprintln!("resume with: --after {cursor}");
    }
    Ok(())
}
