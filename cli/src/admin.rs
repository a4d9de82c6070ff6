//! The `agents` and `tools` admin commands.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result, bail};
use reqwest::Method;
use serde_json::Value;

use crate::args::{ImportSource, Operation, OutputFormat, Remote};
use crate::client::Client;
use crate::output;

/// Which collection a command works on.
#[derive(Debug, Clone, Copy)]
pub enum Collection {
    /// `/agents`
    Agents,
    /// `/tools`
    Tools,
}

impl Collection {
    fn path(self) -> &'static str {
        match self {
            Self::Agents => "/agents",
            Self::Tools => "/tools",
        }
    }

    fn id_field(self) -> &'static str {
        match self {
            Self::Agents => "agentId",
            Self::Tools => "toolId",
        }
    }
}

/// Runs one admin operation against a running registry.
pub async fn run(collection: Collection, op: Operation, remote: Remote) -> Result<()> {
    let client = Client::new(&remote.url, remote.token.clone())?;
    let base = collection.path();
    match op {
        Operation::List { tag, status, all, limit } => {
            let mut query = vec![("limit", limit.to_string())];
            query.extend(tag.map(|t| ("tag", t)));
            query.extend(status.map(|s| ("status", s)));
            let (items, cursor) = client.list(base, &query, all).await?;
            output::list(collection, &items, cursor.as_deref(), remote.output);
        }
        Operation::Get { id } => {
            let reply = client.send(Method::GET, &item_path(base, &id), None, None).await?;
            output::one(&reply.body, remote.output);
        }
        Operation::Apply { file } => {
            for doc in read_documents(&file)? {
                let id = doc
                    .get(collection.id_field())
                    .and_then(Value::as_str)
                    .with_context(|| {
                        format!("apply needs `{}` in every document", collection.id_field())
                    })?
                    .to_owned();
                let before = client.send(Method::GET, &item_path(base, &id), None, None).await.ok();
                let reply =
                    client.send(Method::PUT, &item_path(base, &id), Some(&doc), None).await?;
                let version = reply.version.or_else(|| reply.body["version"].as_u64());
                let outcome = match (before.and_then(|b| b.version), version) {
                    (None, _) => "created",
                    (Some(old), Some(new)) if old == new => "unchanged",
                    _ => "updated",
                };
                match remote.output {
                    OutputFormat::Json => output::one(&reply.body, OutputFormat::Json),
                    OutputFormat::Table if reply.status == 202 => println!(
                        "{id}: proposed for review (proposal {}; agent-registry proposals show it)",
                        reply.body["id"].as_str().unwrap_or("?")
                    ),
                    OutputFormat::Table => println!(
                        "{id}: {outcome} (version {})",
                        version.map_or("?".to_owned(), |v| v.to_string())
                    ),
                }
            }
        }
        Operation::Delete { id, version } => {
            let path = item_path(base, &id);
            let version = match version {
                Some(v) => v,
                None => client
                    .send(Method::GET, &path, None, None)
                    .await?
                    .version
                    .context("the registry did not return an ETag")?,
            };
            client.send(Method::DELETE, &path, None, Some(version)).await?;
            if remote.output == OutputFormat::Table {
                println!("{id}: deleted (was version {version})");
            }
        }
        Operation::Verify { id, require_tags } => {
            tools_only(collection, "verify")?;
            let body = serde_json::json!({"requiredTags": require_tags});
            let path = format!("{}/verify", item_path(base, &id));
            let reply = client.send(Method::POST, &path, Some(&body), None).await?;
            output::verification(&reply.body, remote.output);
            if reply.body["ok"] != Value::Bool(true) {
                bail!("`{id}`: Bedrock cannot use this tool as it is (see the findings)");
            }
        }
        Operation::Invoke { id, function, args, session_attributes, context, agent, session } => {
            tools_only(collection, "invoke")?;
            let arguments: Value =
                serde_json::from_str(&args).context("--args must be a JSON object")?;
            let mut body = serde_json::json!({"function": function, "arguments": arguments});
            if let Some(attributes) = session_attributes {
                body["sessionAttributes"] = serde_json::from_str(&attributes)
                    .context("--session-attributes must be a JSON object of strings")?;
            }
            if let Some(context) = context {
                body["context"] =
                    serde_json::from_str(&context).context("--context must be a JSON object")?;
            }
            if let Some(agent) = agent {
                body["agentId"] = Value::from(agent);
            }
            if let Some(session) = session {
                body["sessionId"] = Value::from(session);
            }
            let path = format!("{}/test-invoke", item_path(base, &id));
            let reply = client.send(Method::POST, &path, Some(&body), None).await?;
            output::invocation(&reply.body, remote.output);
        }
        Operation::Search { query, limit } => {
            tools_only(collection, "search")?;
            let query = [("q", query), ("limit", limit.to_string())];
            let path = format!("{base}/search?{}", encode_query(&query));
            let reply = client.send(Method::GET, &path, None, None).await?;
            match remote.output {
                OutputFormat::Json => output::one(&reply.body, OutputFormat::Json),
                OutputFormat::Table => output::search(&reply.body),
            }
        }
        Operation::Token { id, agent, context, scope } => {
            tools_only(collection, "token")?;
            let context: Value =
                serde_json::from_str(&context).context("--context must be a JSON object")?;
            let mut query = vec![("agentId", agent)];
            query.extend(scope.map(|s| ("scope", s)));
            let path = format!("{}/token?{}", item_path(base, &id), encode_query(&query));
            let reply = client.send(Method::POST, &path, Some(&context), None).await?;
            output::one(&reply.body, remote.output);
        }
        Operation::Publish { id, context, role_arn, dry_run } => {
            agents_only(collection, "publish")?;
            let mut body = serde_json::json!({"dryRun": dry_run});
            if let Some(context) = context {
                body["context"] =
                    serde_json::from_str(&context).context("--context must be a JSON object")?;
            }
            if let Some(role) = role_arn {
                body["roleArn"] = Value::from(role);
            }
            let path = format!("{}/publish", item_path(base, &id));
            let reply = client.send(Method::POST, &path, Some(&body), None).await?;
            output::publication(&reply.body, remote.output);
        }
        Operation::Resolve { id, context, explain } => {
            agents_only(collection, "resolve")?;
            let body: Value =
                serde_json::from_str(&context).context("--context must be a JSON object")?;
            let path = format!("{}/resolve{}", item_path(base, &id), explain_query(explain));
            let reply = client.send(Method::POST, &path, Some(&body), None).await?;
            output::one(&reply.body, remote.output);
        }
        Operation::Authorize { id, function, args, context, agent, session, explain } => {
            tools_only(collection, "authorize")?;
            let arguments: Value =
                serde_json::from_str(&args).context("--args must be a JSON object")?;
            let context: Value =
                serde_json::from_str(&context).context("--context must be a JSON object")?;
            let mut body = serde_json::json!({
                "context": context,
                "call": {"function": function, "arguments": arguments},
            });
            if let Some(agent) = agent {
                body["agentId"] = Value::from(agent);
            }
            if let Some(session) = session {
                body["sessionId"] = Value::from(session);
            }
            let path = format!("{}/authorize{}", item_path(base, &id), explain_query(explain));
            let reply = client.send(Method::POST, &path, Some(&body), None).await?;
            output::one(&reply.body, remote.output);
        }
        Operation::Publication { id } => {
            agents_only(collection, "publication")?;
            let path = format!("{}/publication", item_path(base, &id));
            let reply = client.send(Method::GET, &path, None, None).await?;
            output::publication(&reply.body, remote.output);
            if reply.body["inSync"] != Value::Bool(true) {
                bail!("`{id}`: Bedrock differs from what publishing now would make (see `plan`)");
            }
        }
        Operation::Unpublish { id } => {
            agents_only(collection, "unpublish")?;
            let path = format!("{}/publication", item_path(base, &id));
            client.send(Method::DELETE, &path, None, None).await?;
            if remote.output == OutputFormat::Table {
                println!("{id}: unpublished");
            }
        }
    }
    Ok(())
}

/// `agent-registry import bedrock`: the server reads the Bedrock agent.
pub async fn import(source: ImportSource, remote: Remote) -> Result<()> {
    let client = Client::new(&remote.url, remote.token.clone())?;
    let ImportSource::Bedrock { agent_id, apply } = source;
    let body = serde_json::json!({"agentId": agent_id, "apply": apply});
    let reply = client.send(Method::POST, "/import/bedrock", Some(&body), None).await?;
    output::one(&reply.body, remote.output);
    let problems = reply.body["problems"].as_array().map_or(0, Vec::len);
    if apply && problems > 0 {
        bail!("nothing written: {problems} definition problem(s) (see `problems`)");
    }
    Ok(())
}

fn tools_only(collection: Collection, op: &str) -> Result<()> {
    match collection {
        Collection::Tools => Ok(()),
        Collection::Agents => bail!("`{op}` applies to tools: agent-registry tools {op} ..."),
    }
}

fn agents_only(collection: Collection, op: &str) -> Result<()> {
    match collection {
        Collection::Agents => Ok(()),
        Collection::Tools => bail!("`{op}` applies to agents: agent-registry agents {op} ..."),
    }
}

/// The path of item `id` under `base`, `id` percent-encoded.
pub(crate) fn item_path(base: &str, id: &str) -> String {
    format!("{base}/{}", encode(id))
}

/// `k=v&...`, values percent-encoded.
pub(crate) fn encode_query(pairs: &[(&str, String)]) -> String {
    pairs.iter().map(|(k, v)| format!("{k}={}", encode(v))).collect::<Vec<_>>().join("&")
}

/// Percent-encodes everything but unreserved characters (RFC 3986).
fn encode(s: &str) -> String {
    const UNRESERVED_KEPT: &percent_encoding::AsciiSet =
        &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');
    percent_encoding::utf8_percent_encode(s, UNRESERVED_KEPT).to_string()
}

/// Reads one definition or a list of them from a JSON or YAML file (`-` for stdin).
fn read_documents(file: &Path) -> Result<Vec<Value>> {
    let text = if file == Path::new("-") {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        s
    } else {
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?
    };
    let value: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(json_err) => serde_yaml_ng::from_str(&text).map_err(|yaml_err| {
            anyhow::anyhow!("{} is neither JSON ({json_err}) nor YAML ({yaml_err})", file.display())
        })?,
    };
    match value {
        Value::Array(items) => Ok(items),
        Value::Object(_) => Ok(vec![value]),
        _ => bail!("{} must hold an object or a list of objects", file.display()),
    }
}

/// `?explain=true` when asked.
fn explain_query(explain: bool) -> &'static str {
    if explain { "?explain=true" } else { "" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_percent_encoded() {
        assert_eq!(encode("weather-basic@1"), "weather-basic%401");
        assert_eq!(encode("a b/c"), "a%20b%2Fc");
    }
}
