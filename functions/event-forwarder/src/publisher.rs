//! Where entries go: EventBridge's `PutEvents`, behind a trait the tests can also
//! point at the local AWS-API server.

use std::future::Future;

use aws_sdk_eventbridge::primitives::DateTime;
use aws_sdk_eventbridge::types::PutEventsRequestEntry;

use crate::entry::BusEntry;

/// What one `PutEvents` call did to each of its entries, in order: `None` accepted,
/// `Some(error)` refused.
pub type Sent = Vec<Option<String>>;

/// Why a whole `PutEvents` call failed.
#[derive(Debug, thiserror::Error)]
pub enum PutFailed {
    /// The call did not succeed.
    #[error("PutEvents failed: {0}")]
    Call(String),
    /// The answer did not hold one result per entry.
    #[error("PutEvents answered {answered} results for {sent} entries")]
    Results {
        /// Results answered.
        answered: usize,
        /// Entries sent.
        sent: usize,
    },
}

/// Puts entries on a bus; one call per batch (at most 10 entries).
pub trait Publisher: Send + Sync {
    /// Sends `entries`; `Err` when the whole call failed.
    fn put(&self, entries: &[BusEntry]) -> impl Future<Output = Result<Sent, PutFailed>> + Send;
}

/// The [`Publisher`] on `aws-sdk-eventbridge`.
#[derive(Debug, Clone)]
pub struct EventBridge {
    client: aws_sdk_eventbridge::Client,
}

impl EventBridge {
    /// A publisher with the usual SDK configuration (`endpoint_url` for a local server).
    pub async fn new(endpoint_url: Option<String>) -> Self {
        let config = registry_sdk_config::sdk_config(endpoint_url).await;
        Self { client: aws_sdk_eventbridge::Client::new(&config) }
    }

    /// A publisher on `client`.
    pub fn from_client(client: aws_sdk_eventbridge::Client) -> Self {
        Self { client }
    }

    /// The SDK client (tests create buses and rules with it).
    pub fn client(&self) -> &aws_sdk_eventbridge::Client {
        &self.client
    }
}

impl Publisher for EventBridge {
    async fn put(&self, entries: &[BusEntry]) -> Result<Sent, PutFailed> {
        let entries: Vec<PutEventsRequestEntry> = entries
            .iter()
            .map(|e| {
                PutEventsRequestEntry::builder()
                    .source(&e.source)
                    .detail_type(&e.detail_type)
                    .detail(&e.detail)
                    .event_bus_name(&e.event_bus_name)
                    .time(DateTime::from_secs(e.time))
                    .build()
            })
            .collect();
        let count = entries.len();
        let out =
            self.client.put_events().set_entries(Some(entries)).send().await.map_err(|e| {
                PutFailed::Call(aws_sdk_eventbridge::error::DisplayErrorContext(&e).to_string())
            })?;
        let results = out.entries();
        if results.len() != count {
            return Err(PutFailed::Results { answered: results.len(), sent: count });
        }
        Ok(results
            .iter()
            .map(|r| {
                r.error_code()
                    .map(|code| format!("{code}: {}", r.error_message().unwrap_or_default()))
            })
            .collect())
    }
}
