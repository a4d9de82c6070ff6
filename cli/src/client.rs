//! HTTP client for the admin commands.

use anyhow::{Context, Result, bail};
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::admin::encode_query;

/// A registry API endpoint with its credentials.
pub struct Client {
    http: reqwest::Client,
    base: String,
    token: Option<String>,
}

/// A successful response: status, version from the `ETag`, JSON body.
pub struct Reply {
    /// HTTP status (202: the change became a proposal).
    pub status: u16,
    /// Version from the `ETag` header, if any.
    pub version: Option<u64>,
    /// Response body (null when empty).
    pub body: Value,
}

impl Client {
    /// A client for `base` (e.g. `http://127.0.0.1:8080`).
    pub fn new(base: &str, token: Option<String>) -> Result<Self> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("agent-registry-cli/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self { http, base: base.trim_end_matches('/').to_owned(), token })
    }

    /// `GET path` with `query`: its items, following `nextCursor` to the last page when
    /// `all` (else the first page only), and the cursor to the page after them.
    pub async fn list(
        &self,
        path: &str,
        query: &[(&str, String)],
        all: bool,
    ) -> Result<(Vec<Value>, Option<String>)> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut q = query.to_vec();
            q.extend(cursor.take().map(|c| ("cursor", c)));
            let page = format!("{path}?{}", encode_query(&q));
            let reply = self.send(Method::GET, &page, None, None).await?;
            items.extend(reply.body["items"].as_array().cloned().unwrap_or_default());
            cursor = reply.body["nextCursor"].as_str().map(str::to_owned);
            if !all || cursor.is_none() {
                return Ok((items, cursor));
            }
        }
    }

    /// Sends a request and turns problem+json errors into readable messages.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        if_match: Option<u64>,
    ) -> Result<Reply> {
        let url = format!("{}{path}", self.base);
        let mut request = self.http.request(method.clone(), &url);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(version) = if_match {
            request = request.header("If-Match", format!("\"{version}\""));
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response =
            request.send().await.with_context(|| format!("cannot reach the registry at {url}"))?;
        let status = response.status();
        let version = response
            .headers()
            .get("etag")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim_matches('"').parse().ok());
        let text = response.text().await?;
        let body = if text.is_empty() { Value::Null } else { serde_json::from_str(&text)? };
        if !status.is_success() {
            bail!(describe_problem(status, &body));
        }
        Ok(Reply { status: status.as_u16(), version, body })
    }
}

/// Formats an RFC 9457 problem (or any error body) for a terminal.
fn describe_problem(status: StatusCode, body: &Value) -> String {
    let code = body.get("code").and_then(Value::as_str).unwrap_or("ERROR");
    let detail = body
        .get("detail")
        .or_else(|| body.get("title"))
        .and_then(Value::as_str)
        .unwrap_or("request failed");
    let mut out = format!("{} {code}: {detail}", status.as_u16());
    for error in body.get("errors").and_then(Value::as_array).into_iter().flatten() {
        let path = error.get("path").and_then(Value::as_str).unwrap_or("");
        let message = error.get("message").and_then(Value::as_str).unwrap_or("");
        out.push_str(&format!("\n  {path}: {message}"));
    }
    out
}
