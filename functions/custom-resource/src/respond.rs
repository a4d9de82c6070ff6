//! Sends the response to the pre-signed `ResponseURL`: HTTP PUT, JSON body, an empty
//! `Content-Type` (the URL is signed without one), retried within the time left.

use std::time::Duration;

use reqwest::header::CONTENT_TYPE;

use crate::event::CfnResponse;

/// Attempts at the PUT before giving up.
const ATTEMPTS: u32 = 3;

/// PUTs `response` to `url`, each attempt bounded by `timeout`.
pub async fn send(
    client: &reqwest::Client,
    url: &str,
    response: &CfnResponse,
    timeout: Duration,
) -> Result<(), String> {
    let body =
        serde_json::to_vec(response).map_err(|e| format!("cannot encode the response: {e}"))?;
    let mut last = String::new();
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt))).await;
        }
        let sent = client
            .put(url)
            .header(CONTENT_TYPE, "")
            .body(body.clone())
            .timeout(timeout)
            .send()
            .await;
        match sent {
            Ok(reply) if reply.status().is_success() => return Ok(()),
            Ok(reply) => last = format!("the response URL answered {}", reply.status()),
            Err(e) => last = format!("cannot reach the response URL: {e}"),
        }
        tracing::warn!(attempt, error = %last, "response not delivered");
    }
    Err(last)
}
