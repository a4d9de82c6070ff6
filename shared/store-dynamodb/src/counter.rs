//! Counts DynamoDB requests by operation, so tests can check the access-pattern table.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};

/// Requests sent per DynamoDB operation (`GetItem`, `TransactWriteItems`, ...); every
/// attempt counts, retries included, so the numbers are round trips.
pub type CallCounts = BTreeMap<String, u64>;

/// An SDK interceptor that counts every request it sees by its `X-Amz-Target` operation.
#[derive(Debug, Clone, Default)]
pub struct CallCounter {
    counts: Arc<Mutex<CallCounts>>,
}

impl CallCounter {
    /// Counts so far.
    pub fn snapshot(&self) -> CallCounts {
        self.counts.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// Sets every count back to zero.
    pub fn reset(&self) {
        if let Ok(mut counts) = self.counts.lock() {
            counts.clear();
        }
    }
}

impl Intercept for CallCounter {
    fn name(&self) -> &'static str {
        "CallCounter"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let target = context.request().headers().get("x-amz-target").unwrap_or("unknown");
        // `DynamoDB_20120810.GetItem` -> `GetItem`
        let operation = target.rsplit('.').next().unwrap_or(target).to_owned();
        if let Ok(mut counts) = self.counts.lock() {
            *counts.entry(operation).or_insert(0) += 1;
        }
        Ok(())
    }
}
