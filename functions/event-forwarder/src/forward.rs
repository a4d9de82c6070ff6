//! A stream batch to `PutEvents` calls, in order, reporting the first failure.

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};

use crate::entry::{BusEntry, entry_of};
use crate::publisher::Publisher;

/// EventBridge's limit of entries per `PutEvents` call.
pub const MAX_ENTRIES_PER_CALL: usize = 10;
/// EventBridge's limit on a call's total entry size (256 KiB).
pub const MAX_CALL_BYTES: usize = 256 * 1024;

/// The size EventBridge counts for an entry (source, detail type, detail, bus, time).
fn entry_size(entry: &BusEntry) -> usize {
    entry.source.len()
        + entry.detail_type.len()
        + entry.detail.len()
        + entry.event_bus_name.len()
        + 14
}

/// The identifier Lambda expects for a failed stream record: its sequence number.
fn item_identifier(record: &EventRecord) -> String {
    record.change.sequence_number.clone().unwrap_or_else(|| record.event_id.clone())
}

fn failed(record: &EventRecord) -> DynamoDbEventResponse {
    let mut response = DynamoDbEventResponse::default();
    let mut failure = DynamoDbBatchItemFailure::default();
    failure.item_identifier = Some(item_identifier(record));
    response.batch_item_failures.push(failure);
    response
}

/// Puts the events of `batch` on `bus`, in stream order: consecutive entries go in one
/// call while it has at most [`MAX_ENTRIES_PER_CALL`] entries, at most
/// [`MAX_CALL_BYTES`] and no two of one definition (so a definition's events are
/// never reordered by a partly failed call). At the first record that fails nothing
/// more is sent and only that record is reported: Lambda retries the stream from it.
pub async fn forward(
    publisher: &impl Publisher,
    batch: &Event,
    bus: &str,
    source: &str,
) -> DynamoDbEventResponse {
    // (record index, entry) of the call being assembled.
    let mut pending: Vec<(usize, BusEntry)> = Vec::new();
    for (index, record) in batch.records.iter().enumerate() {
        let entry = match entry_of(record, bus, source) {
            Ok(Some(entry)) => entry,
            Ok(None) => continue,
            Err(e) => {
                tracing::error!(record = %item_identifier(record), error = %e, "unusable event record");
                if let Some(failure) = flush(publisher, batch, &mut pending).await {
                    return failure;
                }
                return failed(record);
            }
        };
        let bytes: usize = pending.iter().map(|(_, e)| entry_size(e)).sum();
        let full = pending.len() >= MAX_ENTRIES_PER_CALL
            || bytes + entry_size(&entry) > MAX_CALL_BYTES
            || pending.iter().any(|(_, e)| e.subject == entry.subject);
        if full && let Some(failure) = flush(publisher, batch, &mut pending).await {
            return failure;
        }
        pending.push((index, entry));
    }
    flush(publisher, batch, &mut pending).await.unwrap_or_default()
}

/// Sends the pending entries; the failure response naming the first refused one (or the
/// first of the call when the call failed), if any.
async fn flush(
    publisher: &impl Publisher,
    batch: &Event,
    pending: &mut Vec<(usize, BusEntry)>,
) -> Option<DynamoDbEventResponse> {
    if pending.is_empty() {
        return None;
    }
    let entries: Vec<BusEntry> = pending.iter().map(|(_, e)| e.clone()).collect();
    let indexes: Vec<usize> = pending.drain(..).map(|(i, _)| i).collect();
    let first_failed = match publisher.put(&entries).await {
        Ok(sent) => {
            sent.iter().position(Option::is_some).map(|p| (p, sent[p].clone().unwrap_or_default()))
        }
        Err(e) => Some((0, e.to_string())),
    };
    let (position, error) = first_failed?;
    let record = &batch.records[indexes[position]];
    tracing::warn!(record = %item_identifier(record), %error, "event not forwarded; retrying from it");
    Some(failed(record))
}
