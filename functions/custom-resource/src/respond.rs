//! Sends the response to the pre-signed `ResponseURL`: HTTP PUT, JSON body, an empty
//! `Content-Type` (the URL is signed without one), retried within the time left.

use std::time::Duration;

use reqwest::header::CONTENT_TYPE;

use crate::event::CfnResponse;
use crate::failure::Undelivered;

/// Attempts at the PUT before giving up.
const ATTEMPTS: u32 = 3;

/// PUTs `response` to `url`, each attempt bounded by `timeout`.
pub async fn send(
    client: &reqwest::Client,
    url: &str,
    response: &CfnResponse,
    timeout: Duration,
) -> Result<(), Undelivered> {
    let body = serde_json::to_vec(response).map_err(Undelivered::Encode)?;
    let mut attempt = 0;
    loop {
        let sent = client
            .put(url)
            .header(CONTENT_TYPE, "")
            .body(body.clone())
            .timeout(timeout)
            .send()
            .await;
        let error = match sent {
            Ok(reply) if reply.status().is_success() => return Ok(()),
            Ok(reply) => Undelivered::Status(reply.status()),
            Err(e) => Undelivered::Unreachable(e),
        };
        tracing::warn!(attempt, %error, "response not delivered");
        attempt += 1;
        if attempt == ATTEMPTS {
            return Err(error);
        }
        tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt))).await;
    }
}
