//! The `keys` command: the principal token's signing keys through the admin routes
//! (`GET /keys`, `POST /keys/rotate`, `DELETE /keys/{kid}`), for `serve` and the
//! Lambdas alike (decision 84).

use anyhow::Result;
use reqwest::Method;
use serde_json::Value;

use crate::admin::item_path;
use crate::args::{KeyOperation, OutputFormat, Remote};
use crate::client::Client;
use crate::output::text;

/// One line per key: its id, whether it signs, when it was made, retired, and when its
/// last token expires.
fn line(key: &Value) -> String {
    let time = |v: &Value| v.as_i64().map_or("-".to_owned(), |t| t.to_string());
    format!(
        "{} {:<8} created={} retired={} tokensValidUntil={}",
        text(&key["kid"]),
        if key["signing"].as_bool() == Some(true) { "signing" } else { "retired" },
        time(&key["createdAt"]),
        time(&key["retiredAt"]),
        time(&key["tokensValidUntil"]),
    )
}

/// Runs `op` and prints the keys it leaves.
pub async fn run(op: KeyOperation, remote: Remote) -> Result<()> {
    let client = Client::new(&remote.url, remote.token.clone())?;
    let (method, path) = match &op {
        KeyOperation::List => (Method::GET, "/keys".to_owned()),
        KeyOperation::Rotate => (Method::POST, "/keys/rotate".to_owned()),
        KeyOperation::Remove { kid } => (Method::DELETE, item_path("/keys", kid)),
    };
    let reply = client.send(method, &path, None, None).await?;
    let keys = reply.body.as_array().cloned().unwrap_or_default();
    match remote.output {
        OutputFormat::Json => println!("{}", serde_json::to_string(&keys).unwrap_or_default()),
        OutputFormat::Table => {
            for key in &keys {
                println!("{}", line(key));
            }
        }
    }
    Ok(())
}
