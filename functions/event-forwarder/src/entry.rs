//! One stream record to one EventBridge entry.

use aws_lambda_events::event::dynamodb::EventRecord;
use registry_store::Event;
use serde::Serialize;
use serde_json::Value;

/// The `source` of every entry unless `REGISTRY_EVENT_SOURCE` says otherwise.
pub const DEFAULT_SOURCE: &str = "agent-registry";

/// One `PutEventsRequestEntry`, named as the EventBridge model names its members (so
/// tests check it against the service model as JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BusEntry {
    /// `agent-registry`.
    pub source: String,
    /// The action, e.g. `proposal.applied`.
    pub detail_type: String,
    /// The event, as JSON text.
    pub detail: String,
    /// The bus.
    pub event_bus_name: String,
    /// When the change committed (seconds since the epoch).
    pub time: i64,
    /// The definition concerned (`<kind>/<id>`), for rules that match on it.
    #[serde(skip)]
    pub subject: String,
}

/// Why a record cannot become an entry (it is reported as failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError(pub String);

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RecordError {}

/// A string attribute of a stream image.
fn string_attribute<'a>(image: &'a Value, name: &str) -> Option<&'a str> {
    image.get(name).and_then(|v| v.get("S")).and_then(Value::as_str)
}

/// The entry for `record` on `bus`: `Ok(None)` for records that are not a new event
/// item (definition heads, snapshots, proposals, the counter, removals).
pub fn entry_of(
    record: &EventRecord,
    bus: &str,
    source: &str,
) -> Result<Option<BusEntry>, RecordError> {
    if record.event_name != "INSERT" {
        return Ok(None);
    }
    let image = serde_json::to_value(&record.change.new_image)
        .map_err(|e| RecordError(format!("unreadable new image: {e}")))?;
    let is_event = string_attribute(&image, "pk") == Some("EVENTS")
        && string_attribute(&image, "sk").is_some_and(|sk| sk.starts_with("E#"));
    if !is_event {
        return Ok(None);
    }
    let doc = string_attribute(&image, "doc")
        .ok_or_else(|| RecordError("event item without a `doc` string".into()))?;
    let event: Event = serde_json::from_str(doc)
        .map_err(|e| RecordError(format!("event item `doc` does not parse: {e}")))?;
    let detail = serde_json::to_string(&event)
        .map_err(|e| RecordError(format!("event does not serialize: {e}")))?;
    Ok(Some(BusEntry {
        source: source.to_owned(),
        detail_type: event.action.as_str().to_owned(),
        detail,
        event_bus_name: bus.to_owned(),
        time: event.time.timestamp(),
        subject: format!("{}/{}", event.kind.as_str(), event.id),
    }))
}
